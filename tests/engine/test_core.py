"""The engine's contract: pure apply, evolve/fold, replay from JSON, typed refusals, undo, seeded decks."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import events as ev
from engine.errors import IllegalCommand, InvalidCommand, TablesideError
from engine.game import run


def play(state: engine.GameState, *commands: dict[str, object]) -> tuple[engine.GameState, list[ev.Event]]:
    log: list[ev.Event] = []
    for c in commands:
        events, state = run(state, c)
        log.extend(events)
    return state, log


def test_apply_is_pure_and_evolve_matches_run() -> None:
    s0 = engine.start(["A", "B"], seed=3)
    before = s0.to_json()
    events = engine.apply(s0, {"type": "roll", "dice": [1, 2]})
    assert s0.to_json() == before  # the given state is never changed
    folded = s0
    for e in events:
        folded = engine.evolve(folded, e)
    assert folded == engine.step(s0, {"type": "roll", "dice": [1, 2]})


def test_fold_replays_a_json_log_without_any_random_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    opening = engine.new_game(["A", "B", "C"], seed=11)
    state = engine.fold(opening)
    state, log = play(state, {"type": "roll", "dice": [3, 4]}, {"type": "draw_card"}, {"type": "end_turn"},
                      {"type": "roll", "dice": [1, 2]}, {"type": "decline"},
                      {"type": "bid", "player": "C", "amount": 30},
                      {"type": "pass_bid", "player": "A"}, {"type": "pass_bid", "player": "B"})
    wire = json.loads(json.dumps([e.to_json() for e in [*opening, *log]]))

    def no_random(*_a: object, **_k: object) -> None:
        raise AssertionError("replay touched a random generator")

    monkeypatch.setattr(random.Random, "random", no_random)
    monkeypatch.setattr(random.Random, "shuffle", no_random)
    replayed = engine.fold(engine.event_from_json(e) for e in wire)
    assert replayed.to_json() == state.to_json()
    assert replayed.deeds["baltic_avenue"].owner == "C"


def test_decks_are_seeded_per_game_and_leave_the_global_generator_alone() -> None:
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    a = engine.start(["A", "B"], seed=5)
    assert random.random() == expected
    b = engine.start(["A", "B"], seed=5)
    c = engine.start(["A", "B"], seed=6)
    assert a.decks == b.decks
    assert a.decks != c.decks
    assert sorted(a.decks["chance"]) == sorted(c.decks["chance"]) and len(a.decks["chance"]) == 16


def test_illegal_command_names_its_rule_and_changes_nothing() -> None:
    s = engine.start(["A", "B"], seed=1)
    with pytest.raises(IllegalCommand) as info:
        engine.apply(s, {"type": "end_turn"})
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, TablesideError)
    assert err.rule == "M.DICE.1"
    assert str(err).startswith("M.DICE.1: ") and "\n" not in str(err)


@pytest.mark.parametrize(
    "command, text",
    [
        ({"type": "teleport"}, "unknown command type 'teleport'"),
        ({"type": "roll"}, "missing field 'dice'"),
        ({"type": "roll", "dice": [0, 3]}, "two dice values 1-6"),
        ({"type": "roll", "dice": [1, 2], "speed": 3}, "unknown field(s) speed"),
        ({"type": "bid", "player": "B", "amount": "ten"}, "must be a whole number"),
        (["roll"], "must be a JSON object"),
    ],
)
def test_malformed_commands_get_one_line_errors(command: object, text: str) -> None:
    s = engine.start(["A", "B"], seed=1)
    with pytest.raises(InvalidCommand) as info:
        engine.apply(s, command)  # type: ignore[arg-type]
    assert text in str(info.value)
    assert "\n" not in str(info.value)


def test_undo_appends_a_compensating_event() -> None:
    s = engine.start(["A", "B"], seed=1)
    s, log = play(s, {"type": "roll", "dice": [1, 2]}, {"type": "buy"}, {"type": "undo"})
    assert isinstance(log[-1], ev.Undone)
    assert s.deeds["baltic_avenue"].owner is None
    assert s.player("A").cash == 1500 and s.head is not None and s.head.kind == "buy"
    # The undo is itself in the log, so folding the log gives the same state.
    assert engine.fold([*engine.new_game(["A", "B"], seed=1), *log]).to_json() == s.to_json()


def test_state_json_contract_keys() -> None:
    data = engine.start(["A", "B"], seed=1).to_json()
    assert set(data["players"][0]) >= {"name", "cash", "position", "in_jail", "jail_turns", "jail_cards", "bankrupt"}
    assert set(data["deeds"]["boardwalk"]) == {"owner", "mortgaged", "houses", "hotel"}
    assert data["bank"]["houses"] == 32 and data["bank"]["hotels"] == 12
    assert set(data["turn"]) >= {"player", "doubles", "phase"}
    assert data["pending"] is None and data["ranking"] == []
    assert len(data["deeds"]) == 28


def test_rulesets_and_overrides() -> None:
    assert engine.resolve("jma-2006").luxury_tax == 75
    assert engine.resolve("jma-2006").income_tax == "flat"
    assert engine.resolve("classic").income_tax == "choice"
    assert engine.resolve("jma-2003").mortgage_transfer_fee == "at_once"
    ed2008 = engine.resolve("jma-2006", {"edition": "2008"})
    assert ed2008.luxury_tax == 100 and ed2008.edition == "2008"
    assert engine.resolve("jma-2006", {"edition": "2008", "luxury_tax": 75}).luxury_tax == 75
    with pytest.raises(InvalidCommand, match="unknown option 'house_rules'"):
        engine.resolve("jma-2006", {"house_rules": True})
    with pytest.raises(InvalidCommand, match="unknown ruleset"):
        engine.resolve("jma-1999")
    with pytest.raises(InvalidCommand, match="must be a whole number"):
        engine.resolve("jma-2006", {"luxury_tax": "75"})


def test_pre2008_and_2008_decks_differ_where_the_editions_do() -> None:
    old = engine.start(["A", "B"], seed=1)
    new = engine.start(["A", "B"], options={"edition": "2008"}, seed=1)
    assert "community_chest:grand_opera" in old.decks["community_chest"]
    assert "community_chest:birthday" in new.decks["community_chest"]
    assert "community_chest:birthday" not in old.decks["community_chest"]
