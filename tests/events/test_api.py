"""The events JSON API and pages: organiser auth (401/403), refusals with rule IDs (400/409), a Monopoly
result taken from a finished engine game, Catan caps, CSV downloads, the form flow with CSRF, Japanese."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy.engine import Engine

from tests.events.conftest import ORG, ORG_PIN, TOKEN, csrf_of, finish_game
from web import create_app


def create(client: FlaskClient, **body: Any) -> Any:
    return client.post("/api/events", json=body, headers=ORG)


def test_writes_need_the_organiser(client: FlaskClient) -> None:
    body = {"name": "Open", "game": "monopoly", "players": "A,B,C,D"}
    r = client.post("/api/events", json=body)
    assert r.status_code == 401 and r.get_json()["error"] == "unauthorized"
    assert client.post("/api/events", json=body, headers={"X-Organiser-Pin": "000000"}).status_code == 403
    assert client.post("/api/events", json=body, headers={"Authorization": "Bearer nope"}).status_code == 403
    # a table's clerk PIN is not an organiser's
    assert client.post("/api/events", json=body, headers={"X-Clerk-Pin": "111111"}).status_code == 401
    r = client.post("/api/events", json=body, headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 201 and r.get_json()["id"] == "open"
    # logged in by the form: the API takes the session, but only with the CSRF header
    token = csrf_of(client.get("/events/login").get_data(as_text=True))
    r = client.post("/events/login", data={"pin": ORG_PIN, "csrf_token": token})
    assert r.status_code == 302
    assert client.post("/api/events/open/seat").status_code == 403
    r = client.post("/api/events/open/seat", headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and len(r.get_json()["rounds"]) == 1
    # reading is open
    client.post("/events/logout", data={"csrf_token": token})
    assert client.get("/api/events").get_json()["events"][0]["rounds"] == 1


def test_refusals_carry_rule_ids(client: FlaskClient) -> None:
    assert create(client, name="Bad", game="chess", players=["A", "B", "C"]).status_code == 400
    assert create(client, name="Dup", game="catan", players=["A", "A", "B"]).status_code == 400
    assert create(client, name="Five", game="catan", players="A,B,C,D,E").status_code == 201
    r = client.post("/api/events/five/seat", headers=ORG)
    assert r.status_code == 409 and r.get_json()["rule"] == "C.TABLE.1"
    assert client.get("/api/events/nope").status_code == 404
    assert client.post("/api/events/nope/seat", headers=ORG).status_code == 404
    assert client.post("/api/events/five/results", data="x", headers=ORG).status_code == 400

    assert create(client, name="Cup", game="catan", players="A,B,C,D,E,F,G").status_code == 201
    ev = client.post("/api/events/cup/seat", headers=ORG).get_json()
    t1, t2 = ev["rounds"][0]["tables"]
    x, y, z, w = t1["players"]
    # seating round 2 before round 1 is done: 409
    assert client.post("/api/events/cup/seat", headers=ORG).get_json()["error"] == "conflict"
    r = client.post("/api/events/cup/results", headers=ORG,
                    json={"round": 1, "table": 1, "points": {x: 9, y: 3, z: 3, w: 2}, "winner": x})
    assert r.status_code == 409 and r.get_json()["rule"] == "C.WIN.1"
    r = client.post("/api/events/cup/results", headers=ORG,
                    json={"round": 1, "table": 1, "points": {x: 9, y: 3}, "winner": None})
    assert r.status_code == 400 and "exactly" in r.get_json()["message"]
    r = client.post("/api/events/cup/results", headers=ORG,
                    json={"round": 1, "table": 1, "points": {x: 13, y: 11, z: 3, w: 2}, "winner": x})
    assert r.status_code == 200
    table = r.get_json()["rounds"][0]["tables"][0]
    assert table["result"]["scores"] == {x: 10, y: 9, z: 3, w: 2}  # C.SCORE.1
    assert table["points"] == {x: 3, y: 2, z: 1, w: 0}  # 4 players: 3/2/1/0
    p, q, s = t2["players"]
    r = client.post("/api/events/cup/results", headers=ORG,
                    json={"round": 1, "table": 2, "points": {p: 10, q: 6, s: 9}})  # by time: no winner
    assert r.status_code == 200
    assert r.get_json()["rounds"][0]["tables"][1]["result"]["scores"][p] == 9

    text = client.get("/events/cup/results.csv")
    assert text.mimetype == "text/csv" and "attachment" in text.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(text.data.decode("utf-8-sig"))))
    assert len(rows) == 7
    by = {row["player"]: row for row in rows}
    assert (by[x]["score"], by[x]["raw"], by[x]["ended_by"]) == ("10", "13", "win")
    assert (by[p]["score"], by[p]["raw"], by[p]["ended_by"], by[p]["win"]) == ("9", "10", "time", "0")
    standings = list(csv.DictReader(io.StringIO(client.get("/events/cup/standings.csv").data.decode("utf-8-sig"))))
    assert standings[0]["player"] == x and standings[0]["wins"] == "1"
    # p and s level on 9 by time share place 1 at their table, and rank 2 here (3 points, no win, score 9)
    assert [(row["rank"], row["points"]) for row in standings][:4] == [("1", "3"), ("2", "3"), ("2", "3"), ("4", "2")]
    assert {standings[1]["player"], standings[2]["player"]} == {p, s}


def test_csv_downloads_open_in_excel_with_japanese_names(client: FlaskClient) -> None:
    """Excel on a Japanese Windows reads a CSV without a byte-order mark as Shift_JIS: the downloads carry one."""
    assert create(client, name="Haru", game="catan", players="太郎,花子,次郎").status_code == 201
    for name in ("standings", "results"):
        r = client.get(f"/events/haru/{name}.csv")
        assert r.status_code == 200 and r.headers["Content-Type"] == "text/csv; charset=utf-8"
        assert r.data.startswith(b"\xef\xbb\xbf") and not r.data[3:].startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(client.get("/events/haru/standings.csv").data.decode("utf-8-sig"))))
    assert {row["player"] for row in rows} == {"太郎", "花子", "次郎"} and "player" in rows[0]


def test_a_name_two_events_share_asks_for_the_id(client: FlaskClient) -> None:
    """Two events may share a name (their ids differ); asked for by that name, the API lists the ids, and the page
    says so in its reader's language, not "no such event"."""
    ids = [create(client, name="Cup", game="catan", players="A,B,C").get_json()["id"] for _ in range(2)]
    assert len(set(ids)) == 2
    r = client.get("/api/events/Cup")
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert all(i in r.get_json()["message"] for i in ids) and "2 events are named 'Cup'" in r.get_json()["message"]
    r = client.get("/events/Cup", headers={"Accept-Language": "ja"})
    html = r.get_data(as_text=True)
    assert r.status_code == 404 and '<html lang="ja">' in html
    # the reason in the reader's language, not in English, and not "no event"
    assert "複数あります" in html and "more than one event" not in html and "ありません" not in html
    assert "Cup" in html and "more than one event is named" in client.get("/events/Cup?lang=en").get_data(as_text=True)
    assert client.get(f"/events/{ids[1]}").status_code == 200  # by its id, found


def test_monopoly_result_from_a_finished_table_game(client: FlaskClient, db: Engine) -> None:
    assert create(client, name="Hall Open", game="monopoly", players="Ann,Bob,Cy,Dee").status_code == 201
    ev = client.post("/api/events/hall-open/seat", headers=ORG).get_json()
    players = tuple(ev["rounds"][0]["tables"][0]["players"])
    # not over yet: refused (M.END.2)
    from hardware.service import TableService

    TableService(db, table_id="u1", players=players, seed=1)
    r = client.post("/api/events/hall-open/results", headers=ORG, json={"round": 1, "table": 1, "from_table": "u1"})
    assert r.status_code == 409 and r.get_json()["rule"] == "M.END.2"
    finish_game(db, "u2", players, (300, 2600, 1200, 800))
    r = client.post("/api/events/hall-open/results", headers=ORG, json={"round": 1, "table": 1, "from_table": "u2"})
    assert r.status_code == 200, r.get_json()
    result = r.get_json()["rounds"][0]["tables"][0]["result"]
    assert result["ranking"] == [players[1], players[2], players[3], players[0]]
    assert result["assets"][players[1]] == 2600
    st = r.get_json()["standings"]
    assert [s["player"] for s in st] == result["ranking"] and [s["points"] for s in st] == [3, 2, 1, 0]
    # a hand-typed ranking that contradicts the assets is refused (M.END.4)
    r = client.post("/api/events/hall-open/results", headers=ORG, json={
        "round": 1, "table": 1, "ranking": list(players), "assets": dict(zip(players, (1, 2, 3, 4), strict=True))})
    assert r.status_code == 409 and r.get_json()["rule"] == "M.END.4"


def test_forms_with_csrf_and_japanese(client: FlaskClient) -> None:
    page = client.get("/events").get_data(as_text=True)
    assert 'id="create-event"' not in page and "/events/login" in page
    assert 'id="events-link"' in client.get("/").get_data(as_text=True)
    token = csrf_of(client.get("/events/login").get_data(as_text=True))
    assert client.post("/events/login", data={"pin": "1", "csrf_token": token}).status_code == 403
    assert client.post("/events/login", data={"pin": ORG_PIN}).status_code == 400  # no CSRF
    assert client.post("/events/login", data={"pin": ORG_PIN, "csrf_token": token}).status_code == 302
    form = {"name": "Night Cup", "game": "monopoly", "players": "A, B, C", "minutes": "45", "seed": "1"}
    assert client.post("/events", data=form).status_code == 400  # no CSRF
    r = client.post("/events", data={**form, "csrf_token": token})
    assert r.status_code == 302 and r.headers["Location"].endswith("/events/night-cup")
    assert client.post("/events/night-cup/seat", data={"csrf_token": token}).status_code == 302
    ev = client.get("/api/events/night-cup").get_json()
    assert ev["minutes"] == 45
    a, b, c = ev["rounds"][0]["tables"][0]["players"]
    url = "/events/night-cup/rounds/1/tables/1/result"
    r = client.post(url, data={"csrf_token": token, "place_0": "1", "place_1": "1", "place_2": "3",
                               "assets_0": "10", "assets_1": "5", "assets_2": "0"})
    assert r.status_code == 400 and "M.END.4" in r.get_data(as_text=True)
    r = client.post(url, data={"csrf_token": token, "place_0": "2", "place_1": "1", "place_2": "3",
                               "assets_0": "1000", "assets_1": "3000", "assets_2": "0", "winner": b})
    assert r.status_code == 302
    ev = client.get("/api/events/night-cup").get_json()
    assert ev["rounds"][0]["tables"][0]["result"]["ranking"] == [b, a, c]
    assert ev["standings"][0] == {"rank": 1, "player": b, "points": 3, "wins": 1, "score": 3000, "games": 1,
                                  "places": [1]}
    client.set_cookie("lang", "ja")
    page = client.get("/events/night-cup").get_data(as_text=True)
    assert "順位表" in page and "次のラウンドの座席を決める" in page


def test_the_pages_own_lang_carries_through_the_organiser_forms(client: FlaskClient) -> None:
    """An organiser on a hall PC whose browser prefers English, given the events page with ?lang=ja, stays in
    Japanese through the login (back to the event it was opened from) and the event's forms."""
    en = {"Accept-Language": "en"}
    index = client.get("/events?lang=ja", headers=en).get_data(as_text=True)
    login_link = re.search(r'href="(/events/login[^"]*)"', index)
    assert login_link and login_link.group(1) == "/events/login?lang=ja"
    page = client.get("/events/login?lang=ja", headers=en).get_data(as_text=True)
    assert '<html lang="ja">' in page and 'action="/events/login?lang=ja"' in page
    r = client.post("/events/login?lang=ja", data={"pin": ORG_PIN, "csrf_token": csrf_of(page),
                                                   "next": "/events"}, headers=en)
    assert r.status_code == 302 and r.headers["Location"] == "/events?lang=ja"
    form = {"name": "Yoru", "game": "monopoly", "players": "A, B, C", "csrf_token": csrf_of(page)}
    r = client.post("/events?lang=ja", data=form, headers=en)
    assert r.status_code == 302 and r.headers["Location"] == "/events/yoru?lang=ja"
    detail = client.get("/events/yoru?lang=ja", headers=en).get_data(as_text=True)
    assert '<html lang="ja">' in detail and 'action="/events/yoru/seat?lang=ja"' in detail
    # The downloads and the JSON API are not pages: nothing is added to them.
    assert 'href="/events/yoru/results.csv"' in detail
    # A `next` that already names a language keeps its own; none is added where the page asked for none.
    r = client.post("/events/login?lang=ja", data={"pin": ORG_PIN, "csrf_token": csrf_of(page),
                                                   "next": "/events/yoru?lang=en"}, headers=en)
    assert r.headers["Location"] == "/events/yoru?lang=en"
    r = client.post("/events/login", data={"pin": ORG_PIN, "csrf_token": csrf_of(page), "next": "/events/yoru"})
    assert r.headers["Location"] == "/events/yoru"


def test_with_no_organiser_pin_the_login_says_how_to_set_one(registry: Any, monkeypatch: Any) -> None:
    """No PIN can be right when none is set: the page says so (and how to set one) instead of "Wrong PIN"."""
    monkeypatch.delenv("TABLESIDE_ORGANISER_PIN", raising=False)
    client = create_app({"TESTING": True, "SECRET_KEY": "t"}, registry=registry).test_client()
    page = client.get("/events/login", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert 'id="organiser-unset"' in page and "--organiser-pin" in page and "主催者PINが設定されていない" in page
    r = client.post("/events/login", data={"pin": "", "csrf_token": csrf_of(page)})
    assert r.status_code == 403 and "No organiser PIN is set" in r.get_data(as_text=True)
    # With one set, the page is the plain form again.
    monkeypatch.setenv("TABLESIDE_ORGANISER_PIN", "424242")
    assert 'id="organiser-unset"' not in client.get("/events/login").get_data(as_text=True)
