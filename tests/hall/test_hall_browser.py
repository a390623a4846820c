"""The hall display in a real browser (Debian's headless Chromium via Playwright): 64 tables on one 1080p
screen, every card inside the screen with its clock, round, state and alerts (referee called, camera
lost, time up); a command at one table reaches its card live; a screenshot goes to artifacts/hall/.
Then the referee's clock on a table's clerk console and dashboard."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.clock import catan_config, monopoly_config
from hardware import store
from hardware.service import TableRegistry, TableService
from tests.hall.conftest import PIN
from tests.web.conftest import LiveServer
from tests.web.test_browser import ARGS, CHROMIUM
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "hall"
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def hall64(tmp_path: Path) -> Iterator[TableRegistry]:
    db = store.open_store(store.sqlite_url(tmp_path / "hall.sqlite"))
    reg = TableRegistry()
    for i in range(1, 65):
        players = ("Aiko", "Ben", "Chie") if i % 5 == 0 else ("Aiko", "Ben", "Chie", "Dan")
        clock = catan_config(players) if i % 8 == 0 else monopoly_config(90 if i != 7 else 0.01)
        svc = TableService(db, table_id=f"t{i:02d}", name=f"Table {i}", clerk_pin=PIN, players=players,
                           seed=i, clock=clock, round_label=f"R{1 + i % 3}")
        if i != 64:
            svc.clock_command({"type": "start"})
        reg.add(svc)
    reg.get("t03").clock_command({"type": "pause"})  # referee called
    cam = reg.get("t05")
    cam._camera.source = "webcam:0"
    cam._set_camera(False, "lost", "no device",
                    "camera webcam:0 lost: no device; retrying, enter rolls by hand meanwhile")
    time.sleep(0.7)
    assert reg.get("t07").tick() is not None  # 0.6 s Monopoly game: time up, end signal given
    yield reg
    reg.stop()


def test_hall_shows_64_tables_on_one_1080p_screen(browser: Any, hall64: TableRegistry) -> None:
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, registry=hall64)
    with LiveServer(app) as srv:
        ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + "/")
        page.wait_for_selector("#hall[data-live='1'][data-tables='64']", timeout=15000)
        boxes = page.eval_on_selector_all(".hall-card", "els => els.map(e => e.getBoundingClientRect().toJSON())")
        assert len(boxes) == 64
        for b in boxes:  # every card whole on the screen, none scrolled away
            assert b["x"] >= 0 and b["y"] >= 0 and b["right"] <= 1920 and b["bottom"] <= 1080, b
            assert b["width"] > 150 and b["height"] > 80, b
        assert page.evaluate("document.documentElement.scrollHeight") <= 1080
        card = page.locator(".hall-card[data-table='t01']")
        assert card.locator(".clock-time").inner_text().startswith("89:") or \
            card.locator(".clock-time").inner_text() == "90:00"
        assert card.locator(".hall-round").inner_text() == "R2"
        assert page.locator(".hall-card[data-table='t03'] [data-alert='referee_called']").count() == 1
        assert page.locator(".hall-card[data-table='t05'] [data-alert='camera_lost']").count() == 1
        assert "enter rolls by hand" in page.locator(".hall-card[data-table='t05'] .cam").get_attribute("title")
        assert page.locator(".hall-card[data-table='t07'] [data-alert='time_up']").count() == 1
        assert "Settlement" in page.locator(".hall-card[data-table='t08'] .clock-phase").inner_text() or \
            "Placement" in page.locator(".hall-card[data-table='t08'] .clock-phase").inner_text()
        # Counting down between pushes.
        before = card.locator(".clock-time").inner_text()
        page.wait_for_function(f"document.querySelector(\".hall-card[data-table='t01'] .clock-time\").textContent "
                               f"!== {before!r}", timeout=5000)
        # A command at one table reaches its card live.
        svc = hall64.get("t20")
        svc.submit({"type": "roll", "dice": [3, 4]})
        page.wait_for_selector(f".hall-card[data-table='t20'][data-seq='{svc.seq}']", timeout=5000)
        # Time up arrives live too (and the card says so).
        hall64.get("t40").clock_command({"type": "end", "reason": "time"})
        page.wait_for_selector(".hall-card[data-table='t40'] [data-alert='time_up']", timeout=5000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hall-64-1080p.png"))
        assert card.get_attribute("href") == "/tables/t01"
        # A hall screen given its language in its address opens the tables' dashboards in it too.
        page.goto(srv.url + "/?lang=ja")
        page.wait_for_selector("#hall[data-live='1'][data-tables='64']", timeout=15000)
        assert page.locator(".hall-card[data-table='t01']").get_attribute("href") == "/tables/t01?lang=ja"
        # The camera's status in the page's language, its cause as the software gave it (web/i18n.py CAMERA_JA).
        title = page.locator(".hall-card[data-table='t05'] .cam").get_attribute("title")
        assert "カメラ: webcam:0 — 切れました（no device）" in title and "retrying" not in title, title
        page.click(".hall-card[data-table='t01']")
        page.wait_for_url("**/tables/t01?lang=ja")
        assert page.get_attribute("html", "lang") == "ja"
        assert not errors, errors
        ctx.close()


def test_referee_clock_on_the_clerk_console_and_dashboard(browser: Any, hall64: TableRegistry) -> None:
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, registry=hall64)
    with LiveServer(app) as srv:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        clerk = ctx.new_page()
        errors: list[str] = []
        clerk.on("pageerror", lambda e: errors.append(str(e)))
        clerk.goto(srv.url + "/tables/t64/login")
        clerk.fill("input[name=pin]", PIN)
        clerk.click("button[type=submit]")
        clerk.wait_for_selector("#table-clock[data-phase='not_started']", timeout=10000)
        dash = ctx.new_page()
        dash.goto(srv.url + "/tables/t64")
        dash.wait_for_selector("#table-clock[data-phase='not_started']", timeout=10000)
        clerk.click("#table-clock [data-clock='start']")
        dash.wait_for_selector("#table-clock[data-phase='placement']", timeout=5000)
        clerk.click("#table-clock [data-clock='adjust']")  # running: refused, with the rule
        clerk.wait_for_selector("#result[data-ok='0']", timeout=5000)
        assert "C.TIME.2" in clerk.inner_text("#result")
        clerk.click("#table-clock [data-clock='pause']")
        dash.wait_for_selector("#table-clock [data-alert='referee_called']", timeout=5000)
        clerk.click("#table-clock [data-clock='resume']")
        dash.wait_for_selector("#table-clock[data-phase='placement']", timeout=5000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        clerk.screenshot(path=str(ARTIFACTS / "clerk-clock.png"))
        dash.screenshot(path=str(ARTIFACTS / "dashboard-clock.png"))
        assert not errors, errors
        ctx.close()
