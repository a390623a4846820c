"""Trades (M.TRADE.1-6) and mortgage transfer fees (M.MORT.4) through `apply`."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine import events as ev
from engine.commands import parse_command
from engine.errors import IllegalCommand
from engine.game import run


def setup(changes: dict[str, Any], ruleset: str = "jma-2006",
          players: tuple[str, ...] = ("A", "B")) -> engine.GameState:
    state = engine.start(list(players), ruleset=ruleset, seed=1)
    return engine.step(state, {"type": "referee_set", "changes": changes})


def trade(giver: str, to: str, give: dict[str, Any], get: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"type": "trade", "from": giver, "to": to, "give": give, "get": get, **kw}


def refused(state: engine.GameState, command: dict[str, Any]) -> str:
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, command)
    return exc.value.rule


def test_trade_json_uses_from_and_round_trips() -> None:
    c = parse_command(trade("A", "B", {"deeds": ["baltic_avenue"]}, {"cash": 100}, lift=["baltic_avenue"]))
    assert c.to_json() == trade("A", "B", {"deeds": ["baltic_avenue"]}, {"cash": 100}, lift=["baltic_avenue"])


def test_trade_is_announced_and_replays_from_json() -> None:
    """M.TRADE.6: the completed trade is an event in the log, with both sides."""
    opening = engine.new_game(["A", "B"], seed=1)
    state = engine.fold(opening)
    log = list(opening)
    for c in ({"type": "referee_set", "changes": {"deeds.baltic_avenue.owner": "A"}},
              trade("A", "B", {"deeds": ["baltic_avenue"]}, {"cash": 100})):
        events, state = run(state, c)
        log.extend(events)
    announced = [e for e in log if isinstance(e, ev.Traded)]
    assert len(announced) == 1 and announced[0].give["deeds"] == ["baltic_avenue"]
    wire = json.loads(json.dumps([e.to_json() for e in log]))
    assert engine.fold(engine.event_from_json(e) for e in wire) == state


@pytest.mark.parametrize(("give", "get", "rule"), [
    ({"deeds": ["baltic_avenue"]}, {}, "M.TRADE.4"),  # gift
    ({}, {"cash": 10}, "M.TRADE.4"),  # asking for money for nothing: forgiveness/gift
    ({"deeds": ["baltic_avenue"]}, {"cash": 29}, "M.TRADE.4"),  # below the $30 mortgage value
    ({"cash": 5, "deeds": ["baltic_avenue"]}, {"cash": 40}, "M.TRADE.4"),  # cash both ways: a loan
    ({"deeds": ["park_place"]}, {"cash": 500}, "M.TRADE.3"),  # not A's
    ({"deeds": ["baltic_avenue"]}, {"cash": 99999}, "M.TRADE.3"),  # not on the spot
    ({"deeds": ["baltic_avenue"]}, {"promise": "rent-free"}, "M.TRADE.3"),  # no promises
])
def test_forbidden_trades_cite_their_rule(give: dict[str, Any], get: dict[str, Any], rule: str) -> None:
    state = setup({"deeds.baltic_avenue.owner": "A"})
    assert refused(state, trade("A", "B", give, get)) == rule


def test_mortgaged_deed_may_go_cheap_but_an_unmortgaged_one_may_not() -> None:
    state = setup({"deeds.baltic_avenue.owner": "A", "deeds.baltic_avenue.mortgaged": True})
    after = engine.step(state, trade("A", "B", {"deeds": ["baltic_avenue"]}, {"cash": 1}))
    assert after.deeds["baltic_avenue"].owner == "B" and after.deeds["baltic_avenue"].mortgaged


@pytest.mark.parametrize(("ruleset", "lift", "b_pays"), [
    ("jma-2006", False, 10),  # no fee unless lifted
    ("jma-2006", True, 10 + 121),  # lifted at once: value + 10%
    ("jma-2003", False, 10 + 11),  # 10% at once
    ("jma-2003", True, 10 + 121),  # lifted at once: the 10% is not paid twice
    ("classic", False, 10 + 11),
])
def test_mortgage_transfer_fee_by_ruleset(ruleset: str, lift: bool, b_pays: int) -> None:
    """M.MORT.4 per ruleset (kentucky_avenue: mortgage $110)."""
    state = setup({"deeds.kentucky_avenue.owner": "A", "deeds.kentucky_avenue.mortgaged": True}, ruleset)
    extra = {"lift": ["kentucky_avenue"]} if lift else {}
    after = engine.step(state, trade("A", "B", {"deeds": ["kentucky_avenue"]}, {"cash": 10}, **extra))
    assert after.player("B").cash == 1500 - b_pays
    assert after.deeds["kentucky_avenue"].mortgaged is not lift
    money = sum(p.cash for p in after.players) - after.bank_issued
    assert money == sum(p.cash for p in state.players) - state.bank_issued


def test_goojf_card_price_limit_counts_per_card() -> None:
    """M.TRADE.4: under $50 a card."""
    state = engine.start(["A", "B"], seed=1)
    state = engine.step(engine.step(state, {"type": "roll", "dice": [3, 4]}), {"type": "draw_card", "card": "goojf"})
    assert refused(state, trade("A", "B", {"jail_cards": ["goojf"]}, {"cash": 50})) == "M.TRADE.4"
    after = engine.step(state, trade("A", "B", {"jail_cards": ["goojf"]}, {"cash": 49}))
    assert after.player("B").jail_cards == ("chance:goojf",)


def test_debt_negotiation_with_the_creditor_is_allowed_when_not_provisional() -> None:
    """M.TRADE.1: a debtor short of cash (but not provisionally bankrupt) may deal with anyone, the
    creditor too; the debt is paid the moment the cash is there; third parties can't trade meanwhile."""
    state = setup({"deeds.boardwalk.owner": "B", "deeds.baltic_avenue.owner": "A",
                   "deeds.oriental_avenue.owner": "A", "players.A.cash": 10, "players.A.position": 36},
                  players=("A", "B", "C"))
    state = engine.step(state, {"type": "roll", "dice": [1, 2]})  # boardwalk, rent $50
    assert state.head is not None and state.head.kind == "debt"
    assert refused(state, trade("B", "C", {"deeds": ["boardwalk"]}, {"cash": 400})) == "M.TRADE.1"
    after = engine.step(state, trade("A", "B", {"deeds": ["oriental_avenue"]}, {"cash": 50}))
    assert after.head is None and after.player("A").cash == 10 and after.player("B").cash == 1500


def test_cash_set_against_a_debt_does_not_pay_the_debtors_mortgage_fees() -> None:
    """M.MORT.4 with M.TRADE.3: the creditor's cash in a deal with the debtor is set against the debt,
    so the debtor can't spend it on the 10% due at once on a mortgaged deed received. Counting it let a
    debtor with $13 take two mortgaged deeds and end with negative cash (found by the property test)."""
    state = setup({"deeds.boardwalk.owner": "B", "deeds.park_place.owner": "B", "deeds.park_place.mortgaged": True,
                   "deeds.oriental_avenue.owner": "A", "players.A.cash": 5, "players.A.position": 36},
                  ruleset="classic")
    state = engine.step(state, {"type": "roll", "dice": [1, 2]})  # boardwalk, B holds the group: rent $100
    assert state.head is not None and state.head.kind == "debt"
    deal = trade("A", "B", {"deeds": ["oriental_avenue"]}, {"deeds": ["park_place"], "cash": 100})
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, deal)
    assert str(exc.value) == "M.MORT.4: A owes the bank $18 for mortgaged deeds, has $5"
    # With cash of A's own for the fee, the same deal goes through and nobody ends below $0.
    richer = engine.step(engine.step(state, {"type": "referee_set", "changes": {"players.A.cash": 30}}), deal)
    assert richer.head is None and richer.player("A").cash == 30 - 18
