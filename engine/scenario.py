"""Scripted games (`tableside scenario FILE.json`): commands, expectations on the state JSON, and
commands that must be refused citing a rule. Pure: takes the parsed file, returns the outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import IllegalCommand, InvalidCommand, TablesideError
from engine.evolve import evolve, fold
from engine.game import apply, new_game
from engine.state import GameState

_MISSING = object()


class ScenarioFailed(TablesideError):
    """A failed expectation or an unexpected refusal; the message names the step (and the rule)."""


@dataclass
class ScenarioResult:
    state: GameState
    steps: int
    events: list[dict[str, Any]] = field(default_factory=list)


def lookup(state_json: Mapping[str, Any], path: str) -> Any:
    """Resolve a dotted path in the state JSON; players are addressed by name (`players.A.cash`)."""
    node: Any = state_json
    for part in path.split("."):
        if isinstance(node, list):
            match = [x for x in node if isinstance(x, dict) and x.get("name") == part]
            if match:
                node = match[0]
            elif part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            elif part == "length":
                node = len(node)
            else:
                return _MISSING
        elif isinstance(node, dict):
            if part not in node:
                return _MISSING
            node = node[part]
        else:
            return _MISSING
    return node


def matches(actual: Any, expected: Any) -> bool:
    # A number expected where the state holds a list compares the list's length (`jail_cards: 1`).
    if isinstance(actual, list) and isinstance(expected, int) and not isinstance(expected, bool):
        return len(actual) == expected
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(matches(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    return bool(actual == expected)


def _players(spec: Any) -> list[str]:
    if not isinstance(spec, list) or not spec:
        raise InvalidCommand("scenario: 'players' must be a non-empty list of names")
    names: list[str] = []
    for p in spec:
        names.append(p["name"] if isinstance(p, dict) else p)
    return names


def run(scenario: Mapping[str, Any]) -> ScenarioResult:
    if not isinstance(scenario, Mapping):
        raise InvalidCommand("scenario: the file must hold a JSON object")
    steps = scenario.get("steps", [])
    if not isinstance(steps, list):
        raise InvalidCommand("scenario: 'steps' must be a list")
    opening = new_game(
        _players(scenario.get("players")),
        ruleset=scenario.get("ruleset", "jma-2006"),
        options=scenario.get("options") or {},
        seed=scenario.get("seed"),
    )
    state = fold(opening)
    log = [e.to_json() for e in opening]
    try:
        state = _steps(state, steps, log)
    except ScenarioFailed as exc:
        rules = scenario.get("rules")
        if isinstance(rules, list) and rules:
            raise ScenarioFailed(f"{exc} [scenario proves {', '.join(map(str, rules))}]") from exc
        raise
    return ScenarioResult(state=state, steps=len(steps), events=log)


def _steps(state: GameState, steps: list[Any], log: list[dict[str, Any]]) -> GameState:
    for i, step in enumerate(steps, start=1):
        if not isinstance(step, Mapping):
            raise ScenarioFailed(f"step {i}: a step must be a JSON object")
        if "expect" in step:
            _expect(state, step["expect"], i)
        elif "expect_error" in step:
            _expect_error(state, step, i)
        else:
            try:
                events = apply(state, step)
            except IllegalCommand as exc:
                raise ScenarioFailed(f"step {i} ({step.get('type')}): refused: {exc}") from exc
            except InvalidCommand as exc:
                raise ScenarioFailed(f"step {i} ({step.get('type')}): invalid: {exc}") from exc
            for e in events:
                state = evolve(state, e)
                log.append(e.to_json())
    return state


def _expect(state: GameState, expected: Any, i: int) -> None:
    if not isinstance(expected, Mapping):
        raise ScenarioFailed(f"step {i}: 'expect' must be an object of path: value")
    data = state.to_json()
    for path, value in expected.items():
        actual = lookup(data, path)
        if actual is _MISSING:
            raise ScenarioFailed(f"step {i} (expect): no such path {path!r} in the state")
        if not matches(actual, value):
            raise ScenarioFailed(f"step {i} (expect): {path} is {actual!r}, expected {value!r}")


def _expect_error(state: GameState, step: Mapping[str, Any], i: int) -> None:
    rule = step["expect_error"]
    command = step.get("command")
    if not isinstance(command, Mapping):
        raise ScenarioFailed(f"step {i}: expect_error needs a 'command' object")
    before = state.to_json()
    try:
        apply(state, command)
    except IllegalCommand as exc:
        if exc.rule != rule:
            raise ScenarioFailed(
                f"step {i} ({command.get('type')}): refused citing {exc.rule}, expected {rule}: {exc}"
            ) from exc
    except InvalidCommand as exc:
        if rule not in ("invalid", "InvalidCommand"):
            raise ScenarioFailed(
                f"step {i} ({command.get('type')}): invalid command, expected refusal citing {rule}: {exc}"
            ) from exc
    else:
        raise ScenarioFailed(f"step {i} ({command.get('type')}): accepted, expected refusal citing {rule}")
    if state.to_json() != before:  # pragma: no cover - apply is pure; this guards the contract
        raise ScenarioFailed(f"step {i}: state changed by a refused command")
