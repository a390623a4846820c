"""Fixtures for the web tests: the real table service on SQLite in a temporary directory, served through
`create_app` (Flask's test client for HTTP tests; waitress on a free port for the browser tests)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hardware import store
from hardware.service import TableRegistry, TableService
from tests.conftest import free_port
from web import create_app

PIN = "424242"
OTHER_PIN = "171717"
PLAYERS = ("Ann", "Bob", "Cy")


def make_service(tmp: Path, table_id: str = "t1", *, pin: str = PIN, players: tuple[str, ...] = PLAYERS,
                 seed: int = 7, name: str | None = None) -> TableService:
    db = store.open_store(store.sqlite_url(tmp / f"{table_id}.sqlite"))
    return TableService(db, table_id=table_id, name=name or f"Table {table_id[-1]}", clerk_pin=pin,
                        players=players, seed=seed, image_dir=tmp / f"{table_id}-rolls")


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[TableRegistry]:
    reg = TableRegistry([make_service(tmp_path, "t1"), make_service(tmp_path, "t2", pin=OTHER_PIN)])
    yield reg
    reg.stop()


@pytest.fixture
def app(registry: TableRegistry) -> Flask:
    return create_app({"TESTING": True, "SECRET_KEY": "test-only"}, registry=registry)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def clerk_headers(pin: str = PIN) -> dict[str, str]:
    return {"X-Clerk-Pin": pin}


def post_command(client: FlaskClient, command: dict[str, Any], table: str = "t1", pin: str = PIN) -> Any:
    return client.post(f"/api/tables/{table}/commands", json=command, headers=clerk_headers(pin))


class LiveServer:
    """waitress serving the app in a thread, on a free local port."""

    def __init__(self, app: Flask) -> None:
        from waitress.server import create_server

        self.app = app
        self.port = free_port()
        # Enough threads for two pages' streams, their fetches and the MJPEG preview at once.
        self.server = create_server(app, host="127.0.0.1", port=self.port, threads=16, channel_timeout=30)
        self.thread = threading.Thread(target=self.server.run, name="waitress", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        from waitress.channel import HTTPChannel

        from web.api import SSE_PING_S
        from web.hall import hub_of

        srv = self.server
        # Open pages' streams end now (their subscriptions closed wake them) instead of at their next ping.
        for table in self.app.extensions["tableside"].tables():
            table.close_subscribers()
        hub_of(self.app).close_subscribers()
        # Event streams still running in waitress's worker threads must end before server.close() frees the
        # trigger's file descriptor: a task finishing later wrote b"x" there, into whatever had reused the
        # number -- a later test's PostgreSQL connection ("invalid frontend message type 120", the hall
        # test's "server closed the connection unexpectedly"). Marked disconnected, a stream stops at its
        # next write (an event or the ping, within SSE_PING_S) without touching the trigger.
        for ch in list(srv._map.values()):  # type: ignore[attr-defined]
            if isinstance(ch, HTTPChannel):
                ch.connected = False
        srv.task_dispatcher.shutdown(cancel_pending=True, timeout=SSE_PING_S + 5.0)  # type: ignore[attr-defined]
        # The loop's thread must leave select() before the sockets close under it: closed there, they made it
        # raise EBADF ("Exception in thread waitress" after the hall's 64-table test), and a number reused
        # meanwhile would have been read as the old channel's. An empty map ends the loop once the trigger wakes
        # it; then what was in it is closed.
        channels = list(srv._map.values())  # type: ignore[attr-defined]
        srv._map.clear()  # type: ignore[attr-defined]
        srv.trigger.pull_trigger()  # type: ignore[attr-defined]
        self.thread.join(timeout=5)
        for ch in channels:
            if ch is not srv and ch is not srv.trigger:  # type: ignore[attr-defined]
                ch.close()
        srv.close()
