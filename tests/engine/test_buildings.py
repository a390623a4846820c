"""Buildings (M.BUILD.1-9) through the public `apply`: declarations, shortage auctions, hotel break-up."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine import buildings, selling
from engine.errors import IllegalCommand
from engine.game import legal_commands, run
from engine.state import BuildingAuction, BuildRound

ORANGE = ("st_james_place", "tennessee_avenue", "new_york_avenue")
RED = ("kentucky_avenue", "indiana_avenue", "illinois_avenue")


def setup(players: list[str], changes: dict[str, Any], **options: Any) -> engine.GameState:
    state = engine.start(players, seed=1, options=options)
    return engine.step(state, {"type": "referee_set", "changes": changes})


def owns(player: str, *deeds: str) -> dict[str, Any]:
    return {f"deeds.{d}.owner": player for d in deeds}


def play(state: engine.GameState, *commands: dict[str, Any]) -> engine.GameState:
    for c in commands:
        state = engine.step(state, c)
    return state


def test_build_refusal_names_the_rule_and_the_uneven_deeds() -> None:
    """M.BUILD.2: the message says which deeds would be uneven."""
    state = setup(["A", "B"], owns("A", *ORANGE))
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, {"type": "build", "player": "A", "deed": "st_james_place", "count": 2})
    assert exc.value.rule == "M.BUILD.2"
    assert str(exc.value) == "M.BUILD.2: uneven build on orange (st_james_place 2, tennessee_avenue 0)"


def test_potential_counts_capacity_bounded_by_what_the_player_could_raise() -> None:
    """M.BUILD.5: whether a follower could run the stock short."""
    state = setup(["A", "B"], owns("A", *ORANGE) | {"players.A.cash": 250})
    # Orange holds 12 houses; $250 + mortgages $280 = $530 buys 5 at $100.
    assert buildings.potential(state, "A", "house") == 5
    assert buildings.potential(state, "A", "hotel") == 0
    assert buildings.potential(state, "B", "house") == 0


def test_uncontested_build_is_immediate_but_a_possible_follower_makes_a_declaration() -> None:
    """M.BUILD.5: at once when following can't exceed the stock; otherwise a build round."""
    state = setup(["A", "B"], owns("A", *ORANGE) | owns("B", *RED), houses=12)
    after = engine.step(state, {"type": "build", "player": "A", "deed": "st_james_place"})
    assert isinstance(after.head, BuildRound)  # B could declare 10 more: 11 > 12 - ... stock
    roomy = setup(["A", "B"], owns("A", *ORANGE) | owns("B", *RED))
    after = engine.step(roomy, {"type": "build", "player": "A", "deed": "st_james_place"})
    assert after.head is None and after.deeds["st_james_place"].houses == 1


def test_shortage_auction_listed_commands_are_all_accepted() -> None:
    """Every command legal_commands offers in a round or a shortage auction is accepted (M.BUILD.5-6)."""
    state = setup(["A", "B", "C"], owns("A", *ORANGE) | owns("B", *RED), houses=1)
    state = play(state, {"type": "build", "player": "A", "deed": "st_james_place"},
                 {"type": "build", "player": "B", "deed": "kentucky_avenue"})
    for c in legal_commands(state):
        run(state, c)
    state = play(state, {"type": "pass_build", "player": "A"}, {"type": "pass_build", "player": "C"})
    assert isinstance(state.head, BuildingAuction)
    listed = legal_commands(state)
    assert {c.type for c in listed} >= {"bid", "pass_bid"}
    assert all(c.player != "C" for c in listed if c.type == "bid")  # C has nowhere to build
    for c in listed:
        run(state, c)


def test_held_bid_then_a_cheaper_deed_is_not_possible_below_cost() -> None:
    """M.BUILD.6: a bid below the wanted deed's cost never builds there."""
    state = setup(["A", "B"], owns("A", "mediterranean_avenue", "baltic_avenue",
                                   "pacific_avenue", "north_carolina_avenue", "pennsylvania_avenue")
                  | owns("B", *RED), houses=1)
    state = play(state, {"type": "build", "player": "A", "deed": "pacific_avenue"},
                 {"type": "build", "player": "B", "deed": "kentucky_avenue"},
                 {"type": "pass_build", "player": "A"},
                 {"type": "bid", "player": "A", "amount": 50},
                 {"type": "pass_bid", "player": "B"},
                 {"type": "place_building", "player": "A", "deed": "pacific_avenue"})
    head = state.head
    assert isinstance(head, BuildingAuction) and head.held and head.high_bid == 50
    # The holder may instead settle for a deed the bid covers.
    state = play(state, {"type": "pass_bid", "player": "B"},
                 {"type": "place_building", "player": "A", "deed": "baltic_avenue"})
    assert state.deeds["baltic_avenue"].houses == 1 and state.players[0].cash == 1450


def test_hotel_break_up_default_layout_and_money() -> None:
    """M.BUILD.8 worked example, checked through the helper: 4,4,H -> 3,3,2 for 5 units at half cost."""
    state = setup(["A", "B"], owns("A", *ORANGE) | {"deeds.st_james_place.houses": 4,
                                                    "deeds.tennessee_avenue.houses": 4,
                                                    "deeds.new_york_avenue.hotel": True})
    assert selling.check_sell(state, "A", "new_york_avenue", 1) == {
        "st_james_place": 3, "tennessee_avenue": 3, "new_york_avenue": 2}
    after = engine.step(state, {"type": "sell_building", "player": "A", "deed": "new_york_avenue"})
    assert after.players[0].cash == 1500 + 5 * 50
    assert (after.bank_houses, after.bank_hotels) == (state.bank_houses, state.bank_hotels + 1)


def test_three_hotels_sell_down_to_what_the_bank_allows() -> None:
    """M.BUILD.8: H,H,H with no houses in the group: selling one hotel must leave 0 houses, which is uneven,
    so it is refused; with the classic rule the bank's houses may be used."""
    hotels = owns("A", *ORANGE) | {f"deeds.{d}.hotel": True for d in ORANGE}
    state = setup(["A", "B"], hotels)
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, {"type": "sell_building", "player": "A", "deed": "st_james_place"})
    assert exc.value.rule == "M.BUILD.8"
    classic = engine.step(engine.start(["A", "B"], ruleset="classic", seed=1),
                          {"type": "referee_set", "changes": hotels})
    after = engine.step(classic, {"type": "sell_building", "player": "A", "deed": "st_james_place"})
    assert after.deeds["st_james_place"].houses == 4 and after.deeds["tennessee_avenue"].hotel


def test_building_round_replays_from_json() -> None:
    """Pending build rounds and auctions survive the JSON log (events are the record)."""
    opening = engine.new_game(["A", "B", "C"], seed=2, options={"houses": 1})
    state = engine.fold(opening)
    log = list(opening)
    for c in ({"type": "referee_set", "changes": owns("A", *ORANGE) | owns("B", *RED)},
              {"type": "build", "player": "A", "deed": "st_james_place"},
              {"type": "build", "player": "B", "deed": "kentucky_avenue"},
              {"type": "pass_build", "player": "A"}, {"type": "pass_build", "player": "C"},
              {"type": "bid", "player": "A", "amount": 100}):
        events, state = run(state, c)
        log.extend(events)
    wire = json.loads(json.dumps([e.to_json() for e in log]))
    replayed = engine.fold(engine.event_from_json(e) for e in wire)
    assert replayed.to_json() == state.to_json()
    assert replayed.head == state.head


def test_a_group_of_hotels_is_offered_as_one_sale_when_one_alone_cannot_be_even() -> None:
    """M.BUILD.8: from H,H,H (no houses in the group) the only even sale takes every hotel down together;
    legal_commands offers it with its layout and the demo bot can use it to pay a debt."""
    hotels = owns("A", *ORANGE) | {f"deeds.{d}.hotel": True for d in ORANGE}
    state = setup(["A", "B"], hotels)
    sales = [c for c in legal_commands(state) if c.type == "sell_building"]
    assert sales and all(getattr(c, "layout", None) == dict.fromkeys(ORANGE, 0) for c in sales)
    after = engine.step(state, sales[0])
    assert after.players[0].cash == 1500 + 3 * 5 * 50 and after.bank_hotels == 12


def test_a_hotel_sale_during_a_house_auction_cannot_take_the_auctioned_house() -> None:
    """M.BUILD.6 and M.BUILD.8: the one house being auctioned stays the auction's. Selling a group of
    hotels down to a house took it (found by the property test: the winner then placed it, and the bank
    held -1 houses); now that layout is refused and selling to bare land still is not."""
    state = setup(["A", "B", "C"], owns("A", *ORANGE) | {f"deeds.{d}.hotel": True for d in ORANGE}
                  | owns("B", *RED) | owns("C", "mediterranean_avenue", "baltic_avenue"), houses=1)
    state = play(state, {"type": "build", "player": "B", "deed": "kentucky_avenue"},
                 {"type": "build", "player": "C", "deed": "mediterranean_avenue"},
                 {"type": "pass_build", "player": "A"}, {"type": "pass_build", "player": "B"})
    assert isinstance(state.head, BuildingAuction) and state.head.unit == "house" and state.bank_houses == 1
    one_left = {"type": "sell_building", "player": "A", "deed": "tennessee_avenue",
                "layout": {"st_james_place": 0, "tennessee_avenue": 0, "new_york_avenue": 1}}
    with pytest.raises(IllegalCommand) as exc:
        engine.apply(state, one_left)
    assert exc.value.rule == "M.BUILD.4"
    assert str(exc.value) == "M.BUILD.4: the bank has 0 houses free (1 under auction); that layout needs 1"
    bare = dict(one_left, layout={d: 0 for d in ORANGE})
    state = play(state, bare, {"type": "bid", "player": "C", "amount": 50}, {"type": "pass_bid", "player": "A"},
                 {"type": "pass_bid", "player": "B"},
                 {"type": "place_building", "player": "C", "deed": "mediterranean_avenue"})
    assert state.bank_houses == 0 and state.deeds["mediterranean_avenue"].houses == 1
