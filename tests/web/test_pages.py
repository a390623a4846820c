"""The pages over HTTP (no browser): rendering, language choice, PIN login with CSRF, CSRF on the API for
session writes, the console's dry-run check, the cash history, and the i18n tables."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine.board import DEEDS, SQUARES
from tests.web.conftest import PIN, post_command
from web import ConfigError, create_app, i18n


def page_data(html: bytes) -> dict[str, Any]:
    m = re.search(rb'<script id="page-data" type="application/json">(.*?)</script>', html, re.S)
    assert m, "page data block missing"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def csrf_of(client: FlaskClient, url: str) -> str:
    html = client.get(url).data
    m = re.search(rb'name="csrf_token" value="([^"]+)"', html)
    assert m
    return m.group(1).decode()


def login(client: FlaskClient, table: str = "t1", pin: str = PIN) -> Any:
    token = csrf_of(client, f"/tables/{table}/login")
    return client.post(f"/tables/{table}/login", data={"pin": pin, "csrf_token": token})


@pytest.mark.parametrize("url", ["/", "/tables/t1", "/tables/t1/overlay", "/tables/t1/login"])
def test_public_pages_render(client: FlaskClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 200
    assert b'name="viewport"' in r.data  # phones
    data = page_data(r.data)
    assert data["i18n"]["lang"] == "en"
    assert len(data["board"]["squares"]) == 40


def test_hall_lists_every_table(client: FlaskClient) -> None:
    html = client.get("/").data
    assert b'data-table="t1"' in html and b'data-table="t2"' in html


def test_unknown_table_page_is_404(client: FlaskClient) -> None:
    assert client.get("/tables/nope").status_code == 404


def test_language_from_accept_language_and_switch(client: FlaskClient) -> None:
    data = page_data(client.get("/tables/t1", headers={"Accept-Language": "ja,en-US;q=0.8"}).data)
    assert data["i18n"]["lang"] == "ja"
    assert data["board"]["deeds"]["boardwalk"]["name"] == "ボードウォーク"
    # The switch (a cookie) wins over the browser's preference.
    r = client.get("/lang/en?next=/tables/t1")
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/t1")
    data = page_data(client.get("/tables/t1", headers={"Accept-Language": "ja"}).data)
    assert data["board"]["deeds"]["boardwalk"]["name"] == "Boardwalk"


def test_the_pages_own_lang_wins_and_the_switch_drops_it(client: FlaskClient) -> None:
    # A hall screen or an OBS source fixed to Japanese by its address, whatever its browser prefers.
    client.get("/lang/en")
    r = client.get("/tables/t1/overlay?lang=ja", headers={"Accept-Language": "en"})
    assert page_data(r.data)["i18n"]["lang"] == "ja"
    assert b'<html lang="ja">' in r.data
    # The switch comes back to the same page without ?lang=, so switching to English sticks.
    switch = re.findall(rb'href="(/lang/en[^"]*)"', client.get("/tables/t1?lang=ja").data)
    assert switch == [b"/lang/en?next=/tables/t1"]
    assert re.findall(rb'href="(/lang/en[^"]*)"', client.get("/events?lang=ja&x=1").data) == [
        b"/lang/en?next=/events?x%3D1"]
    r = client.get("/lang/en?next=/events?x%3D1")
    assert r.headers["Location"].endswith("/events?x=1")
    # An unknown code is passed over (the cookie's English stands), not an error.
    r = client.get("/tables/t1?lang=fr")
    assert r.status_code == 200 and page_data(r.data)["i18n"]["lang"] == "en"
    # The console's dry run words its refusal in the page's language (its requests carry ?lang=), not in the
    # cookie's.
    post_command(client, {"type": "referee_set", "changes": {"deeds.boardwalk.owner": "Ann"}})
    bad = {"type": "trade", "from": "Ann", "to": "Bob", "give": {"deeds": ["boardwalk"]}, "get": {"cash": 10}}
    for asked, title in (("ja", "M.TRADE.4: 禁止"), ("en", "M.TRADE.4: forbidden")):
        body = client.post(f"/api/tables/t1/check?lang={asked}", json=bad, headers={"X-Clerk-Pin": PIN}).get_json()
        assert body["rule"] == "M.TRADE.4" and body["message"].startswith(title), body


def test_the_pages_own_lang_carries_through_login_and_back(client: FlaskClient) -> None:
    """A clerk given the console's address with ?lang=ja, on a browser that prefers English, stays in Japanese
    through the redirect to the PIN login, a wrong PIN, the console and the sign-out."""
    en = {"Accept-Language": "en"}
    r = client.get("/tables/t1/clerk?lang=ja", headers=en)
    assert r.status_code == 302 and r.headers["Location"] == "/tables/t1/login?lang=ja"
    page = client.get("/tables/t1/login?lang=ja", headers=en)
    assert b'<html lang="ja">' in page.data
    assert b'action="/tables/t1/login?lang=ja"' in page.data
    token = re.search(rb'name="csrf_token" value="([^"]+)"', page.data)
    assert token
    wrong = client.post("/tables/t1/login?lang=ja", data={"pin": "999999", "csrf_token": token.group(1).decode()},
                        headers=en)
    assert wrong.status_code == 403 and i18n.t("wrong_pin", "ja").encode() in wrong.data
    r = client.post("/tables/t1/login?lang=ja", data={"pin": PIN, "csrf_token": token.group(1).decode()}, headers=en)
    assert r.status_code == 302 and r.headers["Location"] == "/tables/t1/clerk?lang=ja"
    console = client.get("/tables/t1/clerk?lang=ja", headers=en)
    data = page_data(console.data)
    assert data["i18n"]["lang"] == "ja"
    # The scripts' own URLs stay bare (they add the page's language themselves), and so do the assets.
    assert not [u for u in data["table"].values() if isinstance(u, str) and "lang=" in u]
    assert not re.findall(rb'src="[^"]*lang=', console.data)
    assert b'href="/tables/t1?lang=ja"' in console.data  # the dashboard link
    assert re.findall(rb'href="(/lang/en[^"]*)"', console.data) == [b"/lang/en?next=/tables/t1/clerk"]
    r = client.post("/tables/t1/logout?lang=ja", data={"csrf_token": data["csrf"]}, headers=en)
    assert r.status_code == 302 and r.headers["Location"] == "/tables/t1?lang=ja"
    # Without ?lang= nothing is added, and an unknown language is not passed on.
    assert client.get("/tables/t1/clerk", headers=en).headers["Location"] == "/tables/t1/login"
    assert client.get("/tables/t1/clerk?lang=fr", headers=en).headers["Location"] == "/tables/t1/login"


def test_error_pages_are_ours_in_the_readers_language(client: FlaskClient) -> None:
    """A page that is not there, or a form refused, shows our page in the reader's language with the reason and a
    way back to the hall; the API keeps answering JSON."""
    r = client.get("/tables/nope", headers={"Accept-Language": "ja"})
    assert r.status_code == 404 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert '<html lang="ja">' in html and "見つかりません" in html and "テーブル「nope」はありません" in html
    assert "no table" not in html  # the reason in the reader's language too, not English under a Japanese heading
    assert 'href="/"' in html and 'data-status="404"' in html
    assert "no table &#39;nope&#39;" in client.get("/tables/nope?lang=en").get_data(as_text=True)
    r = client.get("/nothing?lang=en")
    html = r.get_data(as_text=True)
    assert r.status_code == 404 and "Not found" in html and 'href="/?lang=en"' in html
    assert "If you entered the URL manually" not in html  # Werkzeug's developer text is left out
    r = client.post("/tables/t1/login", data={"pin": PIN}, headers={"Accept-Language": "ja"})  # no CSRF token
    assert r.status_code == 400 and "不正なリクエストです" in r.get_data(as_text=True)
    assert "ページを再読み込みして" in r.get_data(as_text=True)
    r = client.post("/tables/t1/login?lang=en", data={"pin": PIN})
    assert r.status_code == 400 and "missing or wrong CSRF token (reload the page" in r.get_data(as_text=True)
    r = client.get("/events/nope", headers={"Accept-Language": "ja"})
    assert r.status_code == 404 and "イベント「nope」はありません" in r.get_data(as_text=True)
    r = client.get("/tables/t1/logout")
    assert r.status_code == 405 and "Not allowed here" in r.get_data(as_text=True) and "POST" in r.headers["Allow"]
    r = client.get("/api/tables/nope/state", headers={"Accept-Language": "ja"})
    assert r.status_code == 404 and r.get_json() == {"error": "not_found", "rule": None, "message": "no table 'nope'"}


def test_language_switch_is_not_an_open_redirect(client: FlaskClient) -> None:
    for target in ("https://evil.example/", "//evil.example/x"):
        r = client.get(f"/lang/ja?next={target}")
        assert r.headers["Location"] == "/"


def test_console_needs_login(client: FlaskClient) -> None:
    r = client.get("/tables/t1/clerk")
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/t1/login")


def test_login_needs_csrf_and_right_pin(client: FlaskClient) -> None:
    assert client.post("/tables/t1/login", data={"pin": PIN}).status_code == 400  # no CSRF token
    r = login(client, pin="999999")
    assert r.status_code == 403 and b"Wrong PIN" in r.data
    r = login(client)
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/t1/clerk")
    r = client.get("/tables/t1/clerk")
    assert r.status_code == 200
    data = page_data(r.data)
    assert data["csrf"] and data["cards"]["pre2008"]["chance"]
    # Logged into t1 only.
    assert client.get("/tables/t2/clerk").status_code == 302


def test_session_writes_need_the_csrf_header(client: FlaskClient) -> None:
    login(client)
    token = page_data(client.get("/tables/t1/clerk").data)["csrf"]
    r = client.post("/api/tables/t1/commands", json={"type": "roll", "dice": [1, 2]})
    assert r.status_code == 403 and r.get_json()["error"] == "csrf"
    r = client.post("/api/tables/t1/commands", json={"type": "roll", "dice": [1, 2]},
                    headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    r = client.post("/api/tables/t1/commands", json={"type": "roll", "dice": [1, 2]},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 200
    # The session is t1's clerk, not t2's.
    r = client.post("/api/tables/t2/commands", json={"type": "roll", "dice": [1, 2]},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 403


def test_logout(client: FlaskClient) -> None:
    login(client)
    token = page_data(client.get("/tables/t1/clerk").data)["csrf"]
    assert client.post("/tables/t1/logout", data={"csrf_token": token}).status_code == 302
    assert client.get("/tables/t1/clerk").status_code == 302


def test_check_is_a_dry_run_with_the_rule_message(client: FlaskClient) -> None:
    post_command(client, {"type": "referee_set", "changes": {"deeds.boardwalk.owner": "Ann"}})
    seq = client.get("/api/tables/t1/state").get_json()["table"]["seq"]
    bad = {"type": "trade", "from": "Ann", "to": "Bob", "give": {"deeds": ["boardwalk"]}, "get": {"cash": 10}}
    r = client.post("/api/tables/t1/check", json=bad, headers={"X-Clerk-Pin": PIN, "Accept-Language": "ja"})
    body = r.get_json()
    assert body["ok"] is False and body["rule"] == "M.TRADE.4"
    assert body["message"].startswith("M.TRADE.4: 禁止")
    good = dict(bad, get={"cash": 300})
    body = client.post("/api/tables/t1/check", json=good, headers={"X-Clerk-Pin": PIN}).get_json()
    assert body["ok"] is True and any(e["type"] == "traded" for e in body["events"])
    # Nothing was stored by either check.
    assert client.get("/api/tables/t1/state").get_json()["table"]["seq"] == seq


def test_legal_lists_the_commands_allowed_now(client: FlaskClient) -> None:
    post_command(client, {"type": "roll", "dice": [1, 2]})
    cmds = client.get("/api/tables/t1/legal", headers={"X-Clerk-Pin": PIN}).get_json()["commands"]
    assert {"type": "buy"} in cmds and {"type": "decline"} in cmds


def test_history_follows_commands_and_undo(client: FlaskClient) -> None:
    post_command(client, {"type": "roll", "dice": [1, 2]})
    post_command(client, {"type": "buy"})
    post_command(client, {"type": "undo"})
    points = client.get("/api/tables/t1/history").get_json()["points"]
    ann = [p["cash"]["Ann"] for p in points]
    assert ann == [1500, 1500, 1440, 1500]  # start, roll, buy, undo


def test_no_default_secret_outside_test_or_demo(registry: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLESIDE_SECRET_KEY", raising=False)
    with pytest.raises(ConfigError):
        create_app({}, registry=registry)


def test_pages_blueprint_is_registered(app: Flask) -> None:
    assert "pages.dashboard" in app.view_functions and "pages.clerk" in app.view_functions


# ---- i18n ----


def test_every_square_has_a_japanese_name() -> None:
    assert set(i18n.SQUARE_NAMES_JA) == {s.index for s in SQUARES}
    assert i18n.deed_name("boardwalk", "ja") == "ボードウォーク"
    assert all(i18n.deed_name(d, "en") == DEEDS[d].name for d in DEEDS)


def test_every_rule_the_engine_cites_has_a_japanese_title() -> None:
    import pathlib

    cited = set()
    for path in (pathlib.Path(__file__).parents[2] / "engine").glob("*.py"):
        cited |= set(re.findall(r'IllegalCommand\(\s*"([A-Z]\.[A-Z]+\.\d+)"', path.read_text(encoding="utf-8")))
    missing = cited - set(i18n.RULE_TITLES)
    assert not missing, f"rule IDs without a translation: {sorted(missing)}"


def test_rule_message_always_shows_the_rule_id() -> None:
    assert i18n.rule_message("M.BUILD.2", "uneven build", "ja").startswith("M.BUILD.2: 均等建築ルール")
    assert i18n.rule_message("X.NEW.1", "something", "ja") == "X.NEW.1: something"


@pytest.mark.parametrize(("cookie", "header", "want"), [
    (None, None, "en"),
    (None, "ja-JP,ja;q=0.9", "ja"),
    (None, "fr-FR,ja;q=0.5,en;q=0.7", "en"),
    (None, "fr-FR,ja;q=0.5", "ja"),
    ("ja", "en", "ja"),
    ("xx", "ja", "ja"),
])
def test_pick_lang(cookie: str | None, header: str | None, want: str) -> None:
    assert i18n.pick_lang(cookie, header) == want


@pytest.mark.parametrize(("asked", "cookie", "header", "want"), [
    ("ja", "en", "en", "ja"),
    ("en", "ja", "ja", "en"),
    ("fr", "ja", "en", "ja"),
    ("", None, "ja", "ja"),
])
def test_pick_lang_asked_in_the_address_wins(asked: str, cookie: str | None, header: str, want: str) -> None:
    assert i18n.pick_lang(cookie, header, asked) == want


def test_ui_strings_exist_in_both_languages() -> None:
    for key, entry in i18n.UI.items():
        assert entry.get("en") and entry.get("ja"), key
    for key, entry in i18n.EVENTS.items():
        assert entry.get("en") and entry.get("ja"), key


def _gist_ja(reason: str) -> str | None:
    """The Japanese gist the pages show for `reason`: the first key of REASONS_JA it contains (common.js
    reasonText)."""
    return next((ja for en, ja in i18n.REASONS_JA.items() if en in reason), None)


@pytest.mark.parametrize(("reason", "gist"), [
    ("die 2 off the board", "盤外"),
    ("die 1 unreadable: cocked: a side face shows beside the top face", "サイコロが傾いている"),
    ("die 1 unreadable: cocked: the top face is seen at a slant", "サイコロが傾いている"),
    ("die 2 unreadable: cocked: a side face's pips show beside the top face (not there before the throw)",
     "サイコロが傾いている"),
    ("die 1 unreadable: stacked or overlapping dice", "サイコロが重なっている"),
    ("die 1 unreadable: motion blur", "動いていてぶれている"),
    ("the picture is too soft to tell a leaning die (blur 0.041 of a die's side, the checks hold to 0.033): focus the "
     "camera, or bring it nearer", "ピントが甘く傾きを判定できない（カメラのピントを合わせるか、近づけてください）"),
    ("die 2 unreadable: the pips read 4, the net gives it p 0.39: a die partly covered or misread", "一部が隠れている"),
    ("die 1 unreadable: a 2 or 3 on an oblong body: maybe a side face at a slant", "側面が見えている"),
    ("die 1 unreadable: the pips read 5, the net 6", "読み取りが食い違う"),  # not "pips unreadable"
    ("die 2 unreadable: the pips read 3 where the net sees no die's top face (p 0.81)", "サイコロの上面が見えない"),
    ("die 1 unreadable: cocked: the net sees a leaning die (p 0.44)", "サイコロが傾いている"),
    ("die 1 unreadable: pips off the d6 grid", "目の並びが読めない"),
    ("die 1 unreadable: a mark on the face that is not a pip", "目の並びが読めない"),
    ("found 3 dice, expected 2", "個数が違う"),
    ("die 2 read with low confidence", "読み取りが不確か"),
    ("die 2 unreadable: no pips seen on a die, and the net not sure of its value (4 at p 0.70)", "読み取りが不確か"),
    ("no dice found", "サイコロが見つからない"),
    ("clerk", "係員による無効"),
])
def test_a_refusals_reason_shows_its_own_gist_in_japanese(reason: str, gist: str) -> None:
    """The reader's and watcher's reasons (vision/reader.py _verdict and the problems it quotes) each get the
    gist that says why, not just "unreadable": the specific keys come first."""
    assert _gist_ja(reason) == gist


def test_a_pages_scripts_do_not_declare_the_same_name_twice() -> None:
    """A page loads common.js (base.html), then its own scripts: a function declared again in a later one replaces
    the earlier one on that page, and the earlier one's callers get the wrong one (the console's trade builder
    once took over the log's wording of a trade)."""
    import itertools
    import re
    from pathlib import Path

    web = Path(__file__).resolve().parents[2] / "web"
    declared = re.compile(r"^(?:async\s+)?function\s+(\w+)|^(?:const|let|var)\s+(\w+)", re.M)
    loaded = re.compile(r"filename='(\w+\.js)'")

    def names(script: str) -> set[str]:
        return {a or b for a, b in declared.findall((web / "static" / script).read_text(encoding="utf-8"))}

    pages = 0
    for template in sorted((web / "templates").glob("*.html")):
        scripts = ["common.js", *[s for s in loaded.findall(template.read_text(encoding="utf-8")) if s != "common.js"]]
        pages += len(scripts) > 1
        for a, b in itertools.combinations(scripts, 2):
            assert not names(a) & names(b), f"{template.name}: {a} and {b} both declare {sorted(names(a) & names(b))}"
    assert pages >= 4  # the hall, dashboard, console and overlay each load scripts of their own


def test_every_way_into_and_out_of_jail_has_words() -> None:
    """The log says why a player went to jail or left it (web/static/common.js eventText), in both languages."""
    from engine import events as ev
    from engine.describe import describe

    for why in ("go_to_jail_square", "third_doubles"):  # engine/landing.py, engine/turns.py; a card says its name
        assert i18n.UI[f"jail_{why}"]["ja"] and describe(ev.SentToJail(player="A", reason=why))
    for how in ("doubles", "fine", "card", "third_roll"):  # engine/turns.py LeftJail
        assert i18n.UI[f"jail_{how}"]["ja"] and i18n.UI[f"jail_{how}"]["en"]
