"""An organiser in a real browser (Debian's headless Chromium via Playwright): sign in, create an event,
seat round 1, enter a table's result; standings update. Screenshots to artifacts/events/ (git-ignored)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port  # noqa: F401  (the LiveServer's port)
from tests.events.conftest import ORG_PIN
from tests.web.conftest import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "events"

pytestmark = pytest.mark.browser

if not CHROMIUM.exists():
    pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")


@pytest.fixture
def server(app: Any) -> Iterator[LiveServer]:
    with LiveServer(app) as srv:
        yield srv


def test_organiser_creates_seats_and_records(server: LiveServer) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url + "/")
            page.click("#events-link")
            page.click("text=Organiser login")
            page.fill("input[name=pin]", ORG_PIN)
            page.click("button[type=submit]")
            page.wait_for_selector("#create-event")
            page.fill("input[name=name]", "Browser Cup")
            page.select_option("select[name=game]", "catan")
            page.fill("textarea[name=players]", "Ann, Bob, Cy, Dee, Eve, Fay, Gus")
            page.click("#create-event button[type=submit]")
            page.wait_for_url("**/events/browser-cup")
            page.click("#seat-form button")
            page.wait_for_selector("#round-1 .ev-tablecard[data-table='2']")
            card = page.locator("#round-1 .ev-tablecard[data-table='1']")
            names = [n.strip() for n in card.locator("tbody tr td:first-child").all_inner_texts()][:4]
            assert len(names) == 4  # 7 players: 4 + 3 (C.TABLE.1)
            form = card.locator("form.result-form")
            # a winner with fewer than 10 points is refused with the rule
            for i, vp in enumerate((9, 8, 5, 3)):
                form.locator(f"input[name=points_{i}]").fill(str(vp))
            form.locator("select[name=winner]").select_option(names[0])
            form.locator("button[type=submit]").click()
            page.wait_for_selector("#event-error")
            assert "C.WIN.1" in page.inner_text("#event-error")
            card = page.locator("#round-1 .ev-tablecard[data-table='1']")
            form = card.locator("form.result-form")
            for i, vp in enumerate((11, 8, 5, 3)):
                form.locator(f"input[name=points_{i}]").fill(str(vp))
            form.locator("select[name=winner]").select_option(names[0])
            form.locator("button[type=submit]").click()
            page.wait_for_selector("#round-1 .ev-tablecard[data-table='1'] tr.winner")
            first = page.locator("#standings tbody tr").first.inner_text()
            assert names[0] in first and "\t3\t1\t10" in first  # 3 points, 1 win, recorded 10 (C.SCORE.1)
            page.screenshot(path=str(ARTIFACTS / "event-en.png"), full_page=True)
            page.click("[data-lang=ja]")
            page.wait_for_selector("text=順位表")
            page.screenshot(path=str(ARTIFACTS / "event-ja.png"), full_page=True)
            assert not errors
        finally:
            browser.close()
