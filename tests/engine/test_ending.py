"""The end of a game (M.END.1-5): end signal timing, valuation, ranking, tie-breaks; open information."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import ending
from engine.errors import IllegalCommand
from engine.game import legal_commands


def setup(players: list[str], changes: dict[str, Any], **options: Any) -> engine.GameState:
    state = engine.start(players, seed=1, options=options)
    return engine.step(state, {"type": "referee_set", "changes": changes}) if changes else state


def play(state: engine.GameState, *commands: dict[str, Any]) -> engine.GameState:
    for c in commands:
        state = engine.step(state, c)
    return state


def test_valuation_counts_prices_buildings_and_half_for_mortgaged() -> None:
    """M.END.3."""
    state = setup(["A", "B"], {"deeds.boardwalk.owner": "A", "deeds.boardwalk.mortgaged": True,
                               "deeds.st_james_place.owner": "A", "deeds.tennessee_avenue.owner": "A",
                               "deeds.new_york_avenue.owner": "A", "deeds.new_york_avenue.hotel": True,
                               "deeds.st_james_place.houses": 4, "deeds.tennessee_avenue.houses": 4})
    expected = 1500 + 400 // 2 + (180 + 180 + 200) + 100 * (4 + 4 + 5)
    assert ending.valuation(state, "A") == expected


@pytest.mark.parametrize(("dice", "last", "doubles"), [
    ([1, 2], 2, False),  # after a plain roll: the next player's roll is the last
    ([2, 2], 1, True),  # during doubles: this turn goes on to its end
])
def test_end_signal_fixes_the_final_turn(dice: list[int], last: int, doubles: bool) -> None:
    """M.END.2."""
    state = play(setup(["A", "B"], {}), {"type": "roll", "dice": dice})
    if state.head is not None:
        state = play(state, {"type": "buy"})
    state = engine.step(state, {"type": "end_signal"})
    assert state.ending == (last, doubles)


def test_nothing_between_turns_after_the_signal() -> None:
    """M.END.2 (004): no negotiation or building after the signal; legal_commands lists none."""
    state = setup(["A", "B"], {f"deeds.{d}.owner": "A" for d in ("st_james_place", "tennessee_avenue",
                                                                  "new_york_avenue")})
    assert any(c.type == "build" for c in legal_commands(state))
    state = engine.step(state, {"type": "end_signal"})
    assert not any(c.type in ("build", "build_hotel", "unmortgage") for c in legal_commands(state))
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, {"type": "build", "player": "A", "deed": "st_james_place"})
    assert exc.value.rule == "M.END.2"


def test_three_way_tie_rolls_until_settled() -> None:
    """M.END.4: players level on assets roll two dice; those level again roll again."""
    state = play(setup(["A", "B", "C"], {"players.C.cash": 1000}), {"type": "end_signal"},
                 {"type": "roll", "dice": [4, 6]})
    assert state.head is not None and state.head.kind == "tie_break"
    state = play(state, {"type": "roll", "dice": [3, 3], "player": "A"},
                 {"type": "roll", "dice": [3, 3], "player": "B"})
    assert state.turn.phase != "game_over"
    with pytest.raises(IllegalCommand):
        engine.apply(state, {"type": "roll", "dice": [1, 1], "player": "C"})
    state = play(state, {"type": "roll", "dice": [1, 1], "player": "B"},
                 {"type": "roll", "dice": [5, 1], "player": "A"})
    assert state.ranking == ("A", "B", "C") and state.winner == "A"


def test_bankrupt_players_rank_by_survival() -> None:
    """M.END.4: bankrupt players below the survivors, the later one out above the earlier."""
    state = setup(["A", "B", "C", "D"], {})
    for name in ("C", "B"):
        state = engine.step(state, {"type": "referee_set", "changes": {f"players.{name}.cash": 0,
                                                                        f"players.{name}.position": 2,
                                                                        "turn.player": name}})
        state = play(state, {"type": "roll", "dice": [1, 1]}, {"type": "declare_bankruptcy"})
    assert ending.ranking(state)[2:] == ("B", "C")


def test_bank_money_is_separate_and_all_open_information_is_in_the_state() -> None:
    """M.SETUP.4: the bank's money is kept apart from every player's (cash in = cash out);
    M.PROC.3: cash, deeds, mortgages and buildings are open information in the state JSON."""
    state = setup(["A", "B"], {"deeds.boardwalk.owner": "A", "deeds.baltic_avenue.owner": "B",
                               "deeds.baltic_avenue.mortgaged": True})
    state = engine.step(state, {"type": "mortgage", "player": "A", "deed": "boardwalk"})
    data = state.to_json()
    assert data["bank"]["issued"] == 200
    assert sum(p["cash"] for p in data["players"]) == 2 * 1500 + data["bank"]["issued"]
    assert data["deeds"]["boardwalk"] == {"owner": "A", "mortgaged": True, "houses": 0, "hotel": False}
    assert data["deeds"]["baltic_avenue"]["mortgaged"] is True
    assert {p["name"]: p["cash"] for p in data["players"]} == {"A": 1700, "B": 1500}
