"""The JSON API over HTTP on the real service (SQLite in a temporary directory): every command of the
engine's vocabulary posted with the clerk PIN, refusals as 400/409 JSON naming the rule, and 401/403 for
writes without the right credentials."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask.testing import FlaskClient

from engine.commands import COMMAND_TYPES
from tests.web.conftest import OTHER_PIN, PIN, post_command


def ref(**changes: Any) -> dict[str, Any]:
    """A referee correction (M.PROC.2) that sets up a position: `deeds__boardwalk__owner="Ann"`."""
    return {"type": "referee_set", "changes": {k.replace("__", "."): v for k, v in changes.items()}}


BROWN = {"deeds__mediterranean_avenue__owner": "Ann", "deeds__baltic_avenue__owner": "Ann"}


@dataclass
class Case:
    """Setup commands, then the command under test: accepted (and `check` holds on the new state) or
    refused with `status` and `rule`."""

    command: dict[str, Any]
    setup: list[dict[str, Any]] = field(default_factory=list)
    check: Callable[[dict[str, Any]], bool] | None = None
    status: int = 200
    rule: str | None = None


def player(state: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in state["players"] if p["name"] == name)


CASES: dict[str, Case] = {
    "roll": Case({"type": "roll", "dice": [3, 4]}, check=lambda s: player(s, "Ann")["position"] == 7),
    "void_throw": Case({"type": "void_throw", "reason": "die 2 off the board"},
                       check=lambda s: player(s, "Ann")["position"] == 0 and s["turn"]["phase"] == "pre_roll"),
    "buy": Case({"type": "buy"}, setup=[{"type": "roll", "dice": [1, 2]}],
                check=lambda s: s["deeds"]["baltic_avenue"]["owner"] == "Ann" and player(s, "Ann")["cash"] == 1440),
    "decline": Case({"type": "decline"}, setup=[{"type": "roll", "dice": [1, 2]}],
                    check=lambda s: s["pending"]["kind"] == "auction"),
    "bid": Case({"type": "bid", "player": "Bob", "amount": 10},
                setup=[{"type": "roll", "dice": [1, 2]}, {"type": "decline"}],
                check=lambda s: s["pending"]["high_bid"] == 10 and s["pending"]["high_bidder"] == "Bob"),
    "pass_bid": Case({"type": "pass_bid", "player": "Ann"},
                     setup=[{"type": "roll", "dice": [1, 2]}, {"type": "decline"},
                            {"type": "bid", "player": "Bob", "amount": 10}],
                     check=lambda s: "Ann" in s["pending"]["out"]),
    "pay_jail_fine": Case({"type": "pay_jail_fine"}, setup=[ref(players__Ann__in_jail=True, players__Ann__position=10)],
                          check=lambda s: not player(s, "Ann")["in_jail"] and player(s, "Ann")["cash"] == 1450),
    "use_jail_card": Case({"type": "use_jail_card"},
                          setup=[ref(players__Ann__in_jail=True, players__Ann__position=10,
                                     players__Ann__jail_cards=["chance:goojf"])],
                          check=lambda s: not player(s, "Ann")["in_jail"] and not player(s, "Ann")["jail_cards"]),
    "draw_card": Case({"type": "draw_card", "deck": "chance", "card": "chance:dividend"},
                      setup=[{"type": "roll", "dice": [3, 4]}], check=lambda s: player(s, "Ann")["cash"] == 1550),
    "choose_tax": Case({"type": "choose_tax", "option": "flat"}, status=409, rule="M.TAX.1"),
    "mortgage": Case({"type": "mortgage", "player": "Ann", "deed": "baltic_avenue"}, setup=[ref(**BROWN)],
                     check=lambda s: s["deeds"]["baltic_avenue"]["mortgaged"] and player(s, "Ann")["cash"] == 1530),
    "unmortgage": Case({"type": "unmortgage", "player": "Ann", "deed": "baltic_avenue"},
                       setup=[ref(**BROWN, deeds__baltic_avenue__mortgaged=True)],
                       check=lambda s: (not s["deeds"]["baltic_avenue"]["mortgaged"]
                                        and player(s, "Ann")["cash"] == 1467)),
    "pay_debt": Case({"type": "pay_debt"},
                     setup=[ref(players__Ann__cash=100), {"type": "roll", "dice": [1, 3]}, ref(players__Ann__cash=500)],
                     check=lambda s: s["pending"] is None and player(s, "Ann")["cash"] == 300),
    "declare_bankruptcy": Case({"type": "declare_bankruptcy"},
                               setup=[ref(players__Ann__cash=10), {"type": "roll", "dice": [1, 3]}],
                               check=lambda s: player(s, "Ann")["bankrupt"]),
    "end_turn": Case({"type": "end_turn"}, setup=[{"type": "roll", "dice": [4, 6]}],
                     check=lambda s: s["turn"]["player"] == "Bob"),
    "undo": Case({"type": "undo"}, setup=[{"type": "roll", "dice": [1, 2]}],
                 check=lambda s: player(s, "Ann")["position"] == 0 and s["pending"] is None),
    "referee_set": Case(ref(players__Bob__cash=1234), check=lambda s: player(s, "Bob")["cash"] == 1234),
    "build": Case({"type": "build", "player": "Ann", "deed": "baltic_avenue", "count": 1}, setup=[ref(**BROWN)],
                  check=lambda s: s["deeds"]["baltic_avenue"]["houses"] == 1 and s["bank"]["houses"] == 31),
    "build_hotel": Case({"type": "build_hotel", "player": "Ann", "deed": "baltic_avenue"},
                        setup=[ref(**BROWN, deeds__baltic_avenue__houses=4, deeds__mediterranean_avenue__houses=4)],
                        check=lambda s: s["deeds"]["baltic_avenue"]["hotel"]),
    "sell_building": Case({"type": "sell_building", "player": "Ann", "deed": "baltic_avenue", "count": 1},
                          setup=[ref(**BROWN, deeds__baltic_avenue__houses=1)],
                          check=lambda s: (s["deeds"]["baltic_avenue"]["houses"] == 0
                                           and player(s, "Ann")["cash"] == 1525)),
    "pass_build": Case({"type": "pass_build", "player": "Bob"}, status=409, rule="M.BUILD.5"),
    "withdraw_build": Case({"type": "withdraw_build", "player": "Bob"}, status=409, rule="M.BUILD.5"),
    "place_building": Case({"type": "place_building", "player": "Ann", "deed": "baltic_avenue"},
                           status=409, rule="M.BUILD.6"),
    "trade": Case({"type": "trade", "from": "Ann", "to": "Bob", "give": {"deeds": ["baltic_avenue"]},
                   "get": {"cash": 100}}, setup=[ref(deeds__baltic_avenue__owner="Ann")],
                  check=lambda s: s["deeds"]["baltic_avenue"]["owner"] == "Bob" and player(s, "Ann")["cash"] == 1600),
    "rescue_offer": Case({"type": "rescue_offer", "from": "Cy", "to": "Ann", "give": {"cash": 100}},
                         status=409, rule="M.BK.1"),
    "accept_rescue": Case({"type": "accept_rescue", "rescuer": "Cy"}, status=409, rule="M.BK.1"),
    "withdraw_rescue": Case({"type": "withdraw_rescue", "player": "Cy"}, status=409, rule="M.BK.1"),
    "assume_jail_fee": Case({"type": "assume_jail_fee", "player": "Bob"}, status=409, rule="M.BK.6"),
    "end_signal": Case({"type": "end_signal"}, check=lambda s: s["ending"] is not None),
}


def test_every_command_type_has_a_case() -> None:
    # A command added to the engine must get an HTTP case here.
    assert set(CASES) == set(COMMAND_TYPES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_command_over_http(client: FlaskClient, name: str) -> None:
    case = CASES[name]
    for step in case.setup:
        r = post_command(client, step)
        assert r.status_code == 200, (step, r.get_json())
    before = client.get("/api/tables/t1/events").get_json()
    r = post_command(client, case.command)
    body = r.get_json()
    assert r.status_code == case.status, body
    if case.status == 200:
        assert body["events"] and body["events"][0]["type"] == "command"
        assert body["events"][0]["payload"]["command"]["type"] == case.command["type"]
        state = client.get("/api/tables/t1/state").get_json()
        assert case.check is not None and case.check(state), state
    else:
        assert body["error"] == "illegal" and body["rule"] == case.rule, body
        assert body["message"]
        # Refused: nothing stored.
        assert client.get("/api/tables/t1/events").get_json() == before


def test_uneven_build_is_409_naming_the_even_rule(client: FlaskClient) -> None:
    post_command(client, ref(**BROWN))
    r = post_command(client, {"type": "build", "player": "Ann", "deed": "baltic_avenue", "count": 2})
    assert r.status_code == 409
    assert r.get_json()["rule"] == "M.BUILD.2"


def test_trade_below_mortgage_value_is_409(client: FlaskClient) -> None:
    post_command(client, ref(deeds__boardwalk__owner="Ann"))
    r = post_command(client, {"type": "trade", "from": "Ann", "to": "Bob", "give": {"deeds": ["boardwalk"]},
                              "get": {"cash": 10}})
    assert r.status_code == 409 and r.get_json()["rule"] == "M.TRADE.4"


@pytest.mark.parametrize("body", [
    {"type": "fly"},
    {"type": "roll", "dice": [7, 1]},
    {"type": "bid", "player": "Bob"},
    {"type": "build", "deed": "baltic_avenue", "colour": "red"},
])
def test_malformed_command_is_400_json(client: FlaskClient, body: dict[str, Any]) -> None:
    r = post_command(client, body)
    assert r.status_code == 400
    data = r.get_json()
    assert data["error"] == "invalid" and data["rule"] is None and data["message"]


def test_body_that_is_not_json_is_400(client: FlaskClient) -> None:
    r = client.post("/api/tables/t1/commands", data="roll 3 4", headers={"X-Clerk-Pin": PIN})
    assert r.status_code == 400


def test_write_without_pin_is_401(client: FlaskClient) -> None:
    r = client.post("/api/tables/t1/commands", json={"type": "roll", "dice": [1, 2]})
    assert r.status_code == 401
    assert r.get_json()["error"] == "unauthorized"


def test_wrong_pin_and_another_tables_pin_are_403(client: FlaskClient) -> None:
    assert post_command(client, {"type": "roll", "dice": [1, 2]}, pin="000000").status_code == 403
    assert post_command(client, {"type": "roll", "dice": [1, 2]}, pin=OTHER_PIN).status_code == 403
    # ... and that table's own PIN works there.
    assert post_command(client, {"type": "roll", "dice": [1, 2]}, table="t2", pin=OTHER_PIN).status_code == 200


def test_spectators_read_everything(client: FlaskClient) -> None:
    assert client.get("/api/tables").status_code == 200
    assert client.get("/api/tables/t1/state").get_json()["table"]["id"] == "t1"
    assert client.get("/api/tables/t1/events").status_code == 200
    assert client.get("/api/tables/t1/history").status_code == 200
    assert client.get("/api/hall").get_json()["tables"][0]["id"] == "t1"
    # ... but the console's helpers are clerk-only too.
    assert client.get("/api/tables/t1/legal").status_code == 401
    assert client.post("/api/tables/t1/check", json={"type": "end_turn"}).status_code == 401


def test_unknown_table_is_404_json(client: FlaskClient) -> None:
    r = client.get("/api/tables/nope/state")
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
