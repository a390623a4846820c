"""The table service's own error and the one-line form every error takes in its logs and statuses."""

from __future__ import annotations


class ServiceError(RuntimeError):
    """The service can't do what was asked for a reason outside the rules (store, setup)."""


def one_line(exc: BaseException) -> str:
    """An error as the one line a clerk or a log sees."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
