"""The hall: every table of the room at a glance, live.

Two ways a hall server knows its tables (docs/hall.md):

- In-process: one laptop runs several `TableService`s (a `TableRegistry`), all writing to one store
  (PostgreSQL for a hall). The hall reads them from memory.
- Mirrored: table units run on their own (a Pi per table, each with its local SQLite as the source of
  truth) and replicate to the hall's PostgreSQL (hardware/replication.py). `HallMirror` is a registry
  whose tables are read from that server: it polls it, folds each table's new events and clock events,
  and publishes like a live table, so the same web app (hall, dashboards, streams) serves them read-only.

`HallHub` fans out changes to the hall-wide Server-Sent Events stream: one compact row per table change,
built once and serialised once, then queued to every connected hall display (the latency target is a
push, not a poll, to 100 displays).

`hall_row(state_json)` is the one place a table's state becomes a hall card's data: round, clock, state,
alerts (referee called, camera lost, time up, placement overdue, unit offline).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import select

import engine
from engine import clock as engine_clock
from hardware import store
from hardware.errors import ServiceError, one_line
from hardware.pubsub import Subscribers, Subscription, event_row
from hardware.tablecamera import MISFIT

UNIT_OFFLINE_S = 15.0  # a mirrored unit not heard of for this long is shown as offline


def hall_row(state: dict[str, Any], *, table_id: str, name: str) -> dict[str, Any]:
    """A table's card on the hall display, from its `state_json()`."""
    table = state.get("table") or {}
    camera = table.get("camera") or {}
    clock = table.get("clock")
    alerts: list[str] = []
    if clock:
        alerts.extend(a for a in clock.get("alerts", ()) if a != "times_up")
        if clock.get("time_up"):
            alerts.append("time_up")
    if camera.get("source", "none") not in ("none", "") and camera.get("ok") is False:
        # A camera whose calibration is for another shape of frame is there but reads nothing: the referee
        # sends someone to click the corners, not to look for a cable.
        # (`kind` from this build's units; the message's start from a unit of a build before it.)
        misfit = camera.get("kind") == "misfit" or str(camera.get("message", "")).startswith(MISFIT)
        alerts.append("camera_not_read" if misfit else "camera_lost")
    if table.get("offline"):
        alerts.append("unit_offline")
    return {
        "id": table_id,
        "name": name,
        "round": table.get("round"),
        "seq": table.get("seq", state.get("seq")),
        "game": table.get("game"),
        "turn": state.get("turn", {}),
        "players": [{"name": p["name"], "cash": p["cash"], "bankrupt": p["bankrupt"]}
                    for p in state.get("players", [])],
        "pending": (state.get("pending") or {}).get("kind"),
        "winner": state.get("winner"),
        "ending": state.get("ending"),
        "camera": {k: camera.get(k) for k in ("source", "ok", "message", "kind", "detail", "reader")},
        "clock": clock,
        "alerts": alerts,
        "dashboard": f"/tables/{table_id}",
    }


class HallHub:
    """Fan-out of every table's changes to the hall displays' stream. Attach the tables once; each
    published message becomes one row, serialised once, queued to every hall subscriber."""

    def __init__(self) -> None:
        self._subs = Subscribers()
        self._attached: set[int] = set()
        self.messages = 0

    def attach(self, tables: Iterable[Any]) -> None:
        for t in tables:
            if id(t) in self._attached:
                continue
            self._attached.add(id(t))
            t.add_listener(self._on_message)

    def _on_message(self, table: Any, message: dict[str, Any]) -> None:
        subs = self._subs.now()
        if not subs:
            return
        row = hall_row(message["state"], table_id=table.id, name=table.name)
        out = {"kind": "table", "seq": row["seq"], "row": row, "now": time.time()}
        text = sse_text(out, event="table")
        self.messages += 1
        for sub in subs:
            sub.put({"sse": text})

    def subscribe(self, maxsize: int = 1024) -> Subscription:
        return self._subs.subscribe(maxsize)

    @property
    def subscriber_count(self) -> int:
        return len(self._subs)

    def close_subscribers(self) -> None:
        """End every hall display's stream now (a server shutting down)."""
        self._subs.close_all()


def sse_text(message: dict[str, Any], event: str = "update") -> str:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event}\ndata: {data}\n\n"


# ---- the mirror: tables read from the hall server's PostgreSQL ------------------------------------------


class MirrorTable:
    """A table unit as the hall server sees it in its database: folded from the replicated logs,
    read-only (commands go to the unit itself)."""

    source = None

    def __init__(self, hall: HallMirror, table_id: str, name: str, clerk_pin: str) -> None:
        self._hall = hall
        self.id = table_id
        self.name = name
        self.clerk_pin = clerk_pin
        self.game_id = 0
        self._seq = 0
        self._state: engine.GameState | None = None
        self._clock: engine_clock.Clock | None = None
        self._clock_seq = 0
        self._info: dict[str, Any] = {}
        self._seen_at: float | None = None
        self._lock = threading.RLock()
        self._subs = Subscribers()
        self._listeners: list[Callable[[Any, dict[str, Any]], None]] = []
        self._clock_key: tuple[Any, ...] | None = None

    # the read side of TableService
    @property
    def seq(self) -> int:
        return self._seq

    def state(self) -> engine.GameState:
        with self._lock:
            if self._state is None:
                raise ServiceError(f"table {self.id}: no game replicated yet")
            return self._state

    def clock_json(self) -> dict[str, Any] | None:
        clock = self._clock
        if clock is None:
            return None
        now = time.time()
        v = engine_clock.view(clock, now)
        out = v.to_json()
        out["now"] = now
        out["time_up"] = v.phase == "times_up" or (v.phase == "ended" and v.end_reason == "time")
        out["play_seconds"] = clock.config.play_seconds
        return out

    def offline(self) -> bool:
        return self._seen_at is None or time.time() - self._seen_at > UNIT_OFFLINE_S

    def state_json(self) -> dict[str, Any]:
        with self._lock:
            data: dict[str, Any] = self._state.to_json() if self._state is not None else {
                "players": [], "turn": {}, "pending": None, "winner": None, "ending": None, "seq": 0}
            data["table"] = {"id": self.id, "name": self.name, "game": self.game_id, "seq": self._seq,
                             "camera": self.camera_status(), "last_roll": None, "clock": self.clock_json(),
                             "round": self._info.get("round"), "offline": self.offline(), "mirrored": True}
            return data

    def camera_status(self) -> dict[str, Any]:
        cam = self._info.get("camera")
        return dict(cam) if isinstance(cam, dict) else {"source": "none", "ok": False, "message": "not reported"}

    def last_roll(self) -> dict[str, Any] | None:
        return None

    def roll_image(self, n: int) -> None:
        return None

    def latest_frame_jpeg(self) -> None:
        return None

    def events(self, after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        with store.session_scope(self._hall.db) as s:
            rows = store.load_events(s, game_id=self.game_id, after=after, limit=limit)
        return [event_row(r) for r in rows]

    def submit(self, command: Any, *, source: str = "clerk") -> list[dict[str, Any]]:
        raise ServiceError(f"table {self.id} is mirrored from its unit: give commands at the table")

    def clock_command(self, command: Any, *, source: str = "referee") -> dict[str, Any]:
        raise ServiceError(f"table {self.id} is mirrored from its unit: give clock commands at the table")

    def subscribe(self, maxsize: int = 256) -> Subscription:
        return self._subs.subscribe(maxsize)

    def close_subscribers(self) -> None:
        self._subs.close_all()

    def add_listener(self, fn: Callable[[Any, dict[str, Any]], None]) -> None:
        with self._lock:
            self._listeners.append(fn)

    def publish(self, kind: str, rows: list[dict[str, Any]]) -> None:
        message = {"kind": kind, "seq": self._seq, "events": rows, "state": self.state_json()}
        subs = self._subs.now()
        with self._lock:
            listeners = list(self._listeners)
        for sub in subs:
            sub.put(message)
        for fn in listeners:
            with contextlib.suppress(Exception):
                fn(self, message)

    # fed by the mirror
    def _load(self, s: Any, game_id: int, info: dict[str, Any] | None, seen_at: datetime | None,
              fetch: bool = True) -> bool:
        """Bring this table up to date from the session (`fetch`: its logs moved); whether anything changed."""
        changed = False
        rows: list[dict[str, Any]] = []
        with self._lock:
            if game_id != self.game_id:
                self.game_id, self._seq, self._state = game_id, 0, None
                self._clock, self._clock_seq = None, 0
                changed = fetch = True
            new = store.load_events(s, game_id=game_id, after=self._seq) if fetch else []
            if new:
                store.check_sequence(new, start=self._seq + 1)
                state = self._state
                for r in new:
                    state = engine.evolve(state, engine.event_from_json(r.payload))
                self._state, self._seq = state, new[-1].seq
                rows = [event_row(r) for r in new[-50:]]
                changed = True
            clock_rows = store.load_clock_events(s, game_id=game_id, after=self._clock_seq) if fetch else []
            if clock_rows:
                all_rows = store.load_clock_events(s, game_id=game_id)
                config = engine_clock.ClockConfig.from_json(all_rows[0].payload["config"])
                self._clock = engine_clock.fold(config, [r.payload for r in all_rows[1:]])
                self._clock_seq = all_rows[-1].seq
                changed = True
            if info is not None and info != self._info:
                self._info = dict(info)
                changed = True
            was_offline = self.offline()
            if seen_at is not None:
                self._seen_at = store.as_utc(seen_at).timestamp()
            if self.offline() != was_offline:
                changed = True
            if self._clock is not None:
                v = engine_clock.view(self._clock, time.time())
                key = (v.phase, v.alerts)
                if key != self._clock_key:
                    self._clock_key = key
                    changed = True
        if changed:
            self.publish("events" if rows else "clock", rows)
        return changed


class HallMirror:
    """A registry of the tables in a hall server's database, kept up to date by polling it (every
    `interval` seconds: which games are current, their last seq and clock seq, the units' status)."""

    def __init__(self, db: Engine, *, interval: float = 0.2, log: Callable[[str], None] | None = None) -> None:
        self.db = db
        self.interval = interval
        self._log = log or (lambda _line: None)
        self._tables: dict[str, MirrorTable] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.polls = 0
        self.error: str | None = None
        self._known: dict[str, tuple[Any, ...]] = {}

    def tables(self) -> list[MirrorTable]:
        with self._lock:
            return sorted(self._tables.values(), key=lambda t: t.id)

    def get(self, table_id: str) -> MirrorTable:
        with self._lock:
            return self._tables[table_id]

    def poll(self) -> int:
        """One look at the server; how many tables changed."""
        changed = 0
        with store.session_scope(self.db) as s:
            conn = s.connection()
            units = conn.execute(sa.text("SELECT id, name, clerk_pin FROM table_units")).all()
            games: dict[str, int | None] = {
                r[0]: r[1] for r in conn.execute(sa.text("SELECT table_id, max(id) FROM games GROUP BY table_id"))}
            ids = [g for g in games.values() if g is not None]
            seqs: dict[int, int] = {}
            cseqs: dict[int, int] = {}
            if ids:
                in_ids: Any = sa.bindparam("ids", expanding=True)
                seqs = dict(conn.execute(sa.text("SELECT game_id, max(seq) FROM events WHERE game_id IN :ids "
                                                 "GROUP BY game_id").bindparams(in_ids), {"ids": ids}).all())
                cseqs = dict(conn.execute(sa.text("SELECT game_id, max(seq) FROM clock_events WHERE game_id "
                                                  "IN :ids GROUP BY game_id").bindparams(in_ids), {"ids": ids}).all())
            status = {r.table_id: r for r in s.exec(select(store.UnitStatus)).all()}
            for tid, name, pin in units:
                with self._lock:
                    table = self._tables.get(tid)
                    if table is None:
                        table = self._tables[tid] = MirrorTable(self, tid, name, pin)
                gid = games.get(tid)
                if gid is None:
                    continue
                st = status.get(tid)
                seen = st.seen_at if st is not None else None
                key = (gid, seqs.get(gid), cseqs.get(gid))
                fetch = self._known.get(tid) != key
                self._known[tid] = key
                # Unchanged logs: only the clock's phase (time up) and the unit's status are looked at again.
                if table._load(s, gid, st.info if st is not None else None, seen, fetch=fetch):
                    changed += 1
        self.polls += 1
        return changed

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="hall-mirror", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll()
                if self.error is not None:
                    self._log("hall: server readable again")
                self.error = None
            except Exception as exc:  # the server is away: keep showing what we have, try again
                if self.error is None:
                    self._log(f"hall: can't read the server: {one_line(exc)}")
                self.error = one_line(exc)
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        for t in self.tables():
            t.close_subscribers()


def attach_all(hub: HallHub, registries: Sequence[Any]) -> None:
    for reg in registries:
        hub.attach(reg.tables())
