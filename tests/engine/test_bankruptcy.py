"""Debt and bankruptcy (M.BK.1-6, M.TRADE.2) through `apply`."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import bankruptcy
from engine.errors import IllegalCommand
from engine.game import legal_commands
from engine.state import Debt


def setup(players: list[str], changes: dict[str, Any], ruleset: str = "jma-2006") -> engine.GameState:
    return engine.step(engine.start(players, ruleset=ruleset, seed=1), {"type": "referee_set", "changes": changes})


DEBT_600 = {"deeds.park_place.owner": "B", "deeds.boardwalk.owner": "B", "deeds.boardwalk.houses": 2,
            "deeds.park_place.houses": 2, "players.A.position": 37, "players.A.cash": 100,
            "deeds.reading_railroad.owner": "A", "deeds.pennsylvania_railroad.owner": "A"}


def provisional(players: list[str], ruleset: str = "jma-2006") -> engine.GameState:
    state = engine.step(setup(players, DEBT_600, ruleset), {"type": "roll", "dice": [1, 1]})
    assert isinstance(state.head, Debt) and state.head.amount == 600
    return state


def offer(giver: str, cash: int, deed: str) -> dict[str, Any]:
    return {"type": "rescue_offer", "from": giver, "to": "A", "give": {"cash": cash}, "get": {"deeds": [deed]}}


def test_offer_that_does_not_help_is_no_rescue() -> None:
    """M.BK.1: an offer must improve the debtor's position (a $100 railroad for $90 does not)."""
    state = provisional(["A", "B", "C"])
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, offer("C", 100, "reading_railroad"))
    assert exc.value.rule == "M.BK.1"


def test_offers_block_bankruptcy_until_withdrawn_and_legal_commands_agree() -> None:
    state = provisional(["A", "B", "C"])
    assert any(c.type == "declare_bankruptcy" for c in legal_commands(state))
    state = engine.step(state, offer("C", 300, "reading_railroad"))
    assert not any(c.type == "declare_bankruptcy" for c in legal_commands(state))
    with pytest.raises(IllegalCommand):
        engine.apply(state, {"type": "declare_bankruptcy"})
    state = engine.step(state, {"type": "withdraw_rescue", "player": "C"})
    assert any(c.type == "declare_bankruptcy" for c in legal_commands(state))


def test_failed_parallel_rescue_restores_every_asset_before_the_bankruptcy() -> None:
    """M.BK.1 (004): deals made for a rescue that fails are void."""
    state = provisional(["A", "B", "C", "D"])
    state = engine.step(state, offer("C", 250, "reading_railroad"))
    state = engine.step(state, {"type": "accept_rescue", "rescuer": "C"})
    head = state.head
    assert isinstance(head, Debt) and len(head.deals) == 1
    assert state.deeds["reading_railroad"].owner == "C" and state.player("C").cash == 1250
    state = engine.step(state, {"type": "declare_bankruptcy"})
    assert state.player("C").cash == 1500
    assert state.player("B").cash == 1500 + 100
    assert {state.deeds[d].owner for d in ("reading_railroad", "pennsylvania_railroad")} == {"B"}


def test_classic_has_no_provisional_bankruptcy() -> None:
    state = provisional(["A", "B", "C"], "classic")
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, offer("C", 300, "reading_railroad"))
    assert exc.value.rule == "M.BK.1"


def test_chairman_debt_is_recognised_from_its_card() -> None:
    """M.BK.4: the debt's card decides; a rent debt to the same player is an ordinary one."""
    chairman = Debt(debtor="A", payees=(("B", 50),), reason="card chance:chairman", rule="M.CARD.1")
    rent = Debt(debtor="A", payees=(("B", 50),), reason="rent for boardwalk", rule="M.RENT.1")
    assert bankruptcy._chairman(chairman) and not bankruptcy._chairman(rent)


def test_jail_rescue_threshold_covers_fee_and_destination_rent() -> None:
    """M.BK.6: a rescue must cover both the $50 fee and the rent where the roll leads."""
    state = setup(["A", "B", "C"], {"players.A.in_jail": True, "players.A.position": 10,
                                    "players.A.jail_turns": 2, "players.A.cash": 0,
                                    "deeds.reading_railroad.owner": "A",
                                    "deeds.states_avenue.owner": "B", "deeds.states_avenue.hotel": True,
                                    "deeds.st_charles_place.owner": "B", "deeds.virginia_avenue.owner": "B"})
    state = engine.step(state, {"type": "roll", "dice": [1, 2]})
    head = state.head
    assert head is not None and head.kind == "jail_fine"
    assert bankruptcy.destination_rent(state, head) == ("B", 750)  # type: ignore[arg-type]
    assert bankruptcy.need(state, head) == 800  # type: ignore[arg-type]
    # C's $500 for the railroad: A could then raise $500 < $800; an improving, partial (parallel) offer.
    state = engine.step(state, {"type": "rescue_offer", "from": "C", "to": "A", "give": {"cash": 500},
                                "get": {"deeds": ["reading_railroad"]}})
    with pytest.raises(IllegalCommand):
        engine.apply(state, {"type": "declare_bankruptcy"})  # own assets pay the fee (M.BK.6)
