"""Offline catch-up: a table unit's local store replicated to the hall's PostgreSQL server.

The unit's own store (SQLite on the Pi) is the source of truth: the table plays on it whether the hall
server is there or not. A `Replicator` copies what the server lacks, table by table and game by game:

    for each local game: find (or create) its copy on the server, keyed by (table id, origin = local id);
    ask the server for the copy's last event seq and last clock seq; push the local rows after those, with
    their own seq, type, payload, source and time; likewise the rolls after the server's last roll number;
    overwrite the unit's status row (camera, round, when) -- all in ONE server transaction per table.

Idempotent by construction: what to push is decided from what the server has (never from a local
"sent" mark that a crash between commit and mark could falsify), and the server's unique (game_id, seq)
and (table_id, n) refuse a row pushed twice, so an interrupted push is simply redone: nothing lost,
nothing doubled. The server being away (stopped, unreachable, restarting) is an exception in one cycle:
logged once, retried every `interval` seconds; the table never waits for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from hardware import store
from hardware.errors import one_line


class Replicator:
    """Push a local store's tables to a hall server. `status(table_id) -> dict` supplies the unit status
    row's info (camera, round); `sync_once()` is one cycle; `start()` runs cycles every `interval` s, and
    at once after `wake()` (call it on each local commit)."""

    def __init__(self, local: Engine, remote_url: str, *, table_ids: Sequence[str] | None = None,
                 interval: float = 0.5, status: Callable[[str], dict[str, Any]] | None = None,
                 log: Callable[[str], None] | None = None, connect_timeout: float = 3.0) -> None:
        self.local = local
        self.remote_url = remote_url
        self.table_ids = list(table_ids) if table_ids is not None else None
        self.interval = interval
        self._status = status
        self._log = log or (lambda _line: None)
        self._connect_timeout = connect_timeout
        self._remote: Engine | None = None
        self._migrated = False
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self.online = False
        self.last_error: str | None = None
        self.pushed = 0  # rows pushed since start
        self.cycles = 0
        self.last_ok: float | None = None

    # ---- one cycle ----

    def remote(self) -> Engine:
        if self._remote is None:
            url = store.make_engine(self.remote_url).url  # the psycopg driver name, as the store uses it
            import sqlalchemy as sa

            self._remote = sa.create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=2,
                                            connect_args={"connect_timeout": max(1, int(self._connect_timeout))})
        if not self._migrated:
            store.migrate(self._remote)
            self._migrated = True
        return self._remote

    def sync_once(self) -> int:
        """Push everything the server lacks; the number of rows pushed. Raises when the server is away."""
        remote = self.remote()
        with Session(self.local) as ls:
            tables = [t for t in ls.exec(select(store.TableUnit)).all()
                      if self.table_ids is None or t.id in self.table_ids]
        pushed = 0
        for table in tables:
            pushed += self._sync_table(remote, table)
        self.pushed += pushed
        self.cycles += 1
        return pushed

    def _sync_table(self, remote: Engine, table: store.TableUnit) -> int:
        pushed = 0
        with Session(self.local) as ls, store.session_scope(remote) as rs:
            store.ensure_table(rs, table_id=table.id, name=table.name, clerk_pin=table.clerk_pin,
                               source=table.source)
            game_map: dict[int, int] = {}
            for game in store.list_games(ls, table_id=table.id):
                assert game.id is not None
                rgame = rs.exec(select(store.Game).where(store.Game.table_id == table.id,
                                                         store.Game.origin == str(game.id))).first()
                if rgame is None:
                    rgame = store.create_game(rs, table_id=table.id, players=store.game_players(ls, game_id=game.id),
                                              ruleset=game.ruleset, options=game.options, seed=game.seed,
                                              imported_from=game.imported_from)
                    rgame.origin = str(game.id)
                    rgame.created_at = game.created_at
                    rs.add(rgame)
                    rs.flush()
                assert rgame.id is not None
                game_map[game.id] = rgame.id
                have = store.last_seq(rs, game_id=rgame.id)
                for r in store.load_events(ls, game_id=game.id, after=have):
                    rs.add(store.EventRow(game_id=rgame.id, seq=r.seq, type=r.type, payload=r.payload,
                                          source=r.source, created_at=r.created_at))
                    pushed += 1
                have_clock = store.last_clock_seq(rs, game_id=rgame.id)
                for c in store.load_clock_events(ls, game_id=game.id, after=have_clock):
                    rs.add(store.ClockEventRow(game_id=rgame.id, seq=c.seq, type=c.type, payload=c.payload,
                                               source=c.source, created_at=c.created_at))
                    pushed += 1
            have_n = rs.exec(select(func.max(store.RollRow.n)).where(store.RollRow.table_id == table.id)).one() or 0
            rolls = ls.exec(select(store.RollRow).where(store.RollRow.table_id == table.id,
                                                        store.RollRow.n > have_n).order_by(col(store.RollRow.n)))
            for x in rolls.all():
                rs.add(store.RollRow(table_id=table.id, game_id=game_map.get(x.game_id) if x.game_id else None,
                                     n=x.n, verdict=x.verdict, reason=x.reason, dice=x.dice, applied=x.applied,
                                     outcome=x.outcome, first_seq=x.first_seq, image_path=x.image_path,
                                     source=x.source, created_at=x.created_at))
                pushed += 1
            row = rs.get(store.UnitStatus, table.id)
            if row is None:
                row = store.UnitStatus(table_id=table.id, info={})
            if self._status is not None:  # without one (a one-off catch-up), the last status stays
                row.info = self._status(table.id)
            row.seen_at = datetime.now(UTC)
            rs.add(row)
        return pushed

    # ---- the loop ----

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="replicator", daemon=True)
        self._thread.start()

    def wake(self, *_args: Any) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                n = self.sync_once()
                if not self.online:
                    self._log(f"replication: hall server reachable; {n} rows caught up")
                self.online, self.last_error, self.last_ok = True, None, time.time()
            except Exception as exc:  # the server is away: the table plays on, we try again
                if self.online or self.last_error is None:
                    self._log(f"replication: hall server unreachable, playing on locally: {one_line(exc)}")
                self.online, self.last_error = False, one_line(exc)
                if self._remote is not None:
                    self._remote.dispose()  # stale connections to a restarted server
            self._wake.wait(self.interval)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._remote is not None:
            self._remote.dispose()

    def wait_caught_up(self, timeout: float) -> bool:
        """Cycles until one pushes nothing (tests and shutdown); False if the server stayed away."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.sync_once() == 0:
                    return True
            except Exception:
                if self._remote is not None:
                    self._remote.dispose()
                time.sleep(0.2)
        return False
