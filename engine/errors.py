"""The one error hierarchy of Tableside.

`IllegalCommand` is a `ValueError` carrying the rule ID it breaks, so callers (scenario runner, web API)
can report `{error, rule, message}` without parsing text.
"""

from __future__ import annotations


class TablesideError(Exception):
    """Base of every error Tableside raises on purpose."""


class InvalidCommand(TablesideError, ValueError):
    """A command that is malformed: unknown type, missing field, unknown player or deed."""

    rule: str | None = None


class IllegalCommand(TablesideError, ValueError):
    """A well-formed command the rules forbid in this state; `.rule` names the rule (e.g. `M.BUILD.2`)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message
