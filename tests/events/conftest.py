"""Fixtures for the events web tests: one table unit's store on SQLite in tmp, which the app also uses for
the tournament events (no EVENTS_DB: the tables' own store), an organiser PIN and an admin token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.engine import Engine

from hardware import store
from hardware.service import TableRegistry, TableService
from web import create_app

ORG_PIN = "909090"
TOKEN = "admin-token-for-tests"
ORG = {"X-Organiser-Pin": ORG_PIN}


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Engine]:
    eng = store.open_store(store.sqlite_url(tmp_path / "hall.sqlite"))
    yield eng
    eng.dispose()


@pytest.fixture
def registry(db: Engine) -> Iterator[TableRegistry]:
    reg = TableRegistry([TableService(db, table_id="u0", players=("P", "Q"), seed=1, clerk_pin="111111")])
    yield reg
    reg.stop()


@pytest.fixture
def app(registry: TableRegistry) -> Flask:
    return create_app({"TESTING": True, "SECRET_KEY": "test-only", "ORGANISER_PIN": ORG_PIN, "ADMIN_TOKEN": TOKEN},
                      registry=registry)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert m, "no CSRF field on the page"
    return m.group(1)


def finish_game(db: Engine, table_id: str, players: tuple[str, ...], cash: tuple[int, ...]) -> TableService:
    """A real engine game at a table unit played to its end: the referee sets the cash (M.PROC.2), the end
    signal (M.END.2), the final roll to Just Visiting; the engine ranks by assets (M.END.3/M.END.4)."""
    svc = TableService(db, table_id=table_id, players=players, seed=1)
    svc.submit({"type": "referee_set", "changes": {f"players.{p}.cash": c for p, c in zip(players, cash, strict=True)}})
    svc.submit({"type": "end_signal"})
    svc.submit({"type": "roll", "dice": [4, 6]})
    assert svc.state().turn.phase == "game_over"
    return svc
