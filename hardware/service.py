"""The table service: camera -> roll watcher -> engine -> store -> subscribers, for one table.

One `TableService` per table. Every change to a game goes through one path, whoever asks (the camera's
watcher, the clerk's console, the demo's automatic clerk):

    command -> engine.game.run(state, command) -> events -> ONE database transaction -> new state -> publish

The in-memory state moves on only after the commit returned, so what subscribers see and what a restarted
service folds from the log are the same thing. A refused command raises (`IllegalCommand` naming the rule,
or `InvalidCommand`) before anything is written.

The camera: a `reroll`/`unreadable` verdict becomes the engine's `void_throw` (logged, changes nothing: the
players are told to roll both dice again, M.DICE.1-2) and is never applied as dice. An `ok` reading becomes
`{"type": "roll", "dice": [a, b]}` for whoever's turn it is; when the engine expects no roll right now (a
decision is pending), the throw is stored and announced as not applied, and the game waits for the clerk.
Every throw is a row in the roll log with its annotated frame on disk.

A camera is never required: while the source is lost the service keeps serving, reports it in
`camera_status()`, takes rolls typed by the clerk, and resumes reading when the source comes back.

Heavy imports (OpenCV, the vision package) happen in the camera thread, so a service without a camera (the
crash test's child, `tableside export`) starts fast.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

import engine
from engine import clock as engine_clock
from engine import game as engine_game
from engine.board import DEEDS
from engine.describe import describe
from hardware import store

if TYPE_CHECKING:
    from calibration.model import Calibration
    from hardware.sources import FrameSource
    from vision.reading import DiceReading
    from vision.watcher import Frame, RollEvent, WatcherConfig

DEFAULT_PLAYERS = ("Aiko", "Ben", "Chie", "Dan")
READERS = ("real", "sim-truth")
MISFIT = "camera not read"  # the camera status's start while the calibration is for another shape of frame


class ServiceError(RuntimeError):
    """The service can't do what was asked for a reason outside the rules (store, setup)."""


def one_line(exc: BaseException) -> str:
    """An error as the one line a clerk or a log sees."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def event_row(row: store.EventRow) -> dict[str, Any]:
    """The stored event as the API and the stream show it."""
    try:
        text = describe(engine.event_from_json(row.payload))
    except (engine.TablesideError, KeyError, TypeError, ValueError):
        text = None  # an event type this build does not know; the payload is still there
    return {"seq": row.seq, "type": row.type, "payload": row.payload, "source": row.source,
            "time": store.iso(row.created_at), "text": text}


# ---- subscribers ----------------------------------------------------------------------------------------


class Subscription:
    """A thread-safe queue of messages for one subscriber (an SSE client, a log printer).

    A subscriber that stops reading never blocks the table: when its queue is full the oldest message is
    dropped (every message carries the whole state, so the newest one is enough to catch up)."""

    def __init__(self, on_close: Callable[[Subscription], None], maxsize: int = 256) -> None:
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue(maxsize)
        self._on_close = on_close
        self.closed = False
        self.dropped = 0

    def put(self, message: dict[str, Any]) -> None:
        while True:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
                    self.dropped += 1

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message, or None after `timeout` or once the subscription is closed."""
        try:
            message = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return None if message is _WAKE else message

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._on_close(self)
            # A reader blocked in get() (an event stream between pings) returns now rather than at its
            # timeout, so a stopping table or server is not held up to SSE_PING_S by every open page.
            self.put(_WAKE)


_WAKE: dict[str, Any] = {}  # queued by close(); compared by identity, never handed to a reader


class Subscribers:
    """The open subscriptions of one publisher (a table, a mirrored table, the hall's feed)."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()

    def subscribe(self, maxsize: int) -> Subscription:
        sub = Subscription(self._drop, maxsize)
        with self._lock:
            self._subs.append(sub)
        return sub

    def _drop(self, sub: Subscription) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._subs.remove(sub)

    def __len__(self) -> int:
        with self._lock:
            return len(self._subs)

    def now(self) -> list[Subscription]:
        """The subscriptions open now (a copy: one may close while the caller goes through them)."""
        with self._lock:
            return list(self._subs)

    def close_all(self) -> None:
        """End every subscription now: their readers' get() returns at once (a server shutting down)."""
        for sub in self.now():
            sub.close()


# ---- the automatic clerk (demo tables and the crash test's scripted game) -------------------------------

# What the automatic clerk does when the game waits on a decision, in order of preference. Rolls are the
# camera's job and are never chosen here.
_AUTO_ORDER = ("pay_debt", "draw_card", "pay_jail_fine", "use_jail_card", "choose_tax", "pass_bid",
               "pass_build", "place_building", "mortgage", "sell_building", "declare_bankruptcy")
AUTO_RESERVE = 150


def auto_decision(state: engine.GameState) -> dict[str, Any] | None:
    """The command a simple automatic clerk gives when the game waits on something other than dice, or
    None when a roll is what the game waits for (or the game is over). Buys while a reserve is kept;
    passes in auctions and build rounds; raises cash by mortgaging, then selling, then bankruptcy.
    Built on `engine.legal_commands`, so it offers only what the rules allow."""
    if state.turn.phase == "game_over":
        return None
    legal = engine.legal_commands(state)
    kinds = {c.type for c in legal}
    if "roll" in kinds:
        return None
    head = state.head
    if "buy" in kinds and head is not None:
        deed = getattr(head, "deed", None)
        price = DEEDS[deed].price if deed in DEEDS else 0
        if state.player(getattr(head, "player", state.turn.player)).cash - price >= AUTO_RESERVE:
            return {"type": "buy"}
    if "decline" in kinds:
        return {"type": "decline"}
    for kind in _AUTO_ORDER:
        for c in legal:
            if c.type == kind:
                if kind == "choose_tax":
                    return {"type": "choose_tax", "option": "flat"}
                return c.to_json()
    return legal[0].to_json() if legal else None


def scripted_command(state: engine.GameState, seed: int) -> dict[str, Any] | None:
    """A deterministic game: the automatic clerk's decision, else a roll whose dice depend only on the
    seed and how many commands the game has accepted, so a game replayed after any crash is the same."""
    decision = auto_decision(state)
    if decision is not None or state.turn.phase == "game_over":
        return decision
    rng = random.Random(seed * 1_000_003 + state.commands)
    return {"type": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]}


def throw_command(verdict: str, reason: str, values: Sequence[Any]) -> tuple[dict[str, Any], bool]:
    """The engine command for a throw the camera read, and whether it is a real roll. Only an `ok` reading
    of exactly two readable dice is a roll; anything else is `void_throw` (M.DICE.1-2: recorded, changes
    nothing, both dice are thrown again)."""
    ok = verdict == "ok" and len(values) == 2 and all(isinstance(v, int) and 1 <= v <= 6 for v in values)
    if ok:
        return {"type": "roll", "dice": list(values)}, True
    why = reason or ("wrong number of dice" if verdict == "ok" else verdict)
    return {"type": "void_throw", "reason": f"{verdict}: {why}"}, False


# ---- the service ----------------------------------------------------------------------------------------


# The camera status's words by kind (CameraStatus.kind), in English; the pages word the kinds in Japanese
# (web/i18n.py CAMERA_JA). {source}: the camera, {reader}: the dice reader, {detail}: the cause as the software
# gave it. "lost" and "back" take the words of the source that reports them (sources.RetryingSource).
CAMERA_WORDS: dict[str, str] = {
    "reading": "reading {source} ({reader} reader)",
    "cant_open": "camera {source} can't be opened: {detail}; retrying, enter rolls by hand meanwhile",
    "failed": "camera {source} failed: {detail}",
    "ended": "camera {source}: end of stream; enter rolls by hand",
    "misfit": MISFIT + ": {detail}, or click the board's corners in the clerk's console",
    "not_recorded": "throw not recorded: {detail}",
    "no_reader": "{detail}",
}


@dataclass
class CameraStatus:
    source: str = "none"
    ok: bool = False
    message: str = "no camera: rolls are entered by the clerk"
    # What the message says, for the pages to say it in their reader's language (web/i18n.py CAMERA_JA): none,
    # reading, cant_open, lost, back, failed, ended, misfit, not_recorded, no_reader; `detail`: the cause as
    # the software gave it (an exception's words, a calibration's shape), shown as it is.
    kind: str = "none"
    detail: str = ""
    reader: str = ""
    frames: int = 0
    throws: int = 0
    since: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "ok": self.ok, "message": self.message, "kind": self.kind,
                "detail": self.detail, "reader": self.reader,
                "frames": self.frames, "throws": self.throws, "since": self.since}


class TableService:
    """One table: its current game, its camera, its subscribers. Thread-safe."""

    def __init__(
        self,
        db: Engine,
        *,
        table_id: str,
        name: str | None = None,
        clerk_pin: str | None = None,
        players: Sequence[str] = DEFAULT_PLAYERS,
        ruleset: str = "jma-2006",
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        source: FrameSource | None = None,
        reader: str = "real",
        calibration: Calibration | None = None,
        calibration_made: datetime | None = None,
        watcher_config: WatcherConfig | None = None,
        image_dir: str | Path | None = None,
        auto_clerk: bool = False,
        auto_clerk_delay_s: float = 0.6,
        new_game: bool = False,
        log: Callable[[str], None] | None = None,
        clock: engine_clock.ClockConfig | None = None,
        now: Callable[[], float] | None = None,
        round_label: str | None = None,
    ) -> None:
        if reader not in READERS:
            raise ServiceError(f"unknown reader {reader!r} (one of {', '.join(READERS)})")
        self.db = db
        self.id = table_id
        self.name = name or table_id
        self.clerk_pin = clerk_pin or f"{secrets.randbelow(10**6):06d}"
        self._players = tuple(players)
        self._ruleset = ruleset
        self._options = dict(options or {})
        self._seed = seed
        self.source = source
        self.reader = reader
        self.calibration = calibration
        # When the calibration given was made (its file's time): one stored for this table since (corners
        # clicked in the clerk's console) is newer, and wins at start-up (_settle_calibration).
        self.calibration_made = calibration_made
        self.watcher_config = watcher_config
        self.image_dir = Path(image_dir) if image_dir else None
        self.auto_clerk = auto_clerk
        self.auto_clerk_delay_s = auto_clerk_delay_s
        self._log = log or (lambda _line: None)
        # The tournament clock (docs/hall.md): its config for a game that has none stored yet, the time
        # source (epoch seconds; a fake one in tests), the round shown on the hall display.
        self._clock_config = clock
        self._now: Callable[[], float] = now or time.time
        self.round_label = round_label
        self._clock: engine_clock.Clock | None = None
        self._clock_seq = 0
        self._clock_key: tuple[Any, ...] | None = None  # phase and alerts last published
        self._listeners: list[Callable[[TableService, dict[str, Any]], None]] = []

        self._lock = threading.RLock()  # one writer per table: the log's seq numbers come from here
        self._subs = Subscribers()
        self._listeners_lock = threading.Lock()
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._camera = CameraStatus(reader=reader if source is not None else "")
        self._frame: Frame | None = None
        self._jpeg: tuple[int, bytes] | None = None
        self._recalibrated = threading.Event()  # the camera loop rebuilds its reader and watcher

        self.game_id = 0
        self._seq = 0
        self._state: engine.GameState
        self._state_json: dict[str, Any] | None = None
        self._last_roll: dict[str, Any] | None = None
        self._open(new_game)

    # ---- start-up: fold the log and carry on ----

    def _open(self, force_new: bool) -> None:
        with store.session_scope(self.db) as s:
            table = store.ensure_table(s, table_id=self.id, name=self.name, clerk_pin=self.clerk_pin,
                                       source=self.source.name if self.source is not None else "")
            self.name, self.clerk_pin = table.name, table.clerk_pin
            game = None if force_new else store.current_game(s, table_id=self.id)
            rows = store.load_events(s, game_id=game.id) if game is not None and game.id is not None else []
            roll = store.last_roll(s, table_id=self.id)
            if self.calibration is None and self.source is not None:
                cal_row = store.latest_calibration(s, table_id=self.id)
                if cal_row is not None:
                    from calibration.model import Calibration

                    self.calibration = Calibration.from_json(cal_row.data)
        if game is None or not rows:
            self._start_game(self._players, self._ruleset, self._options, self._seed, existing=game)
        else:
            store.check_sequence(rows)
            assert game.id is not None
            self.game_id = game.id
            self._state = engine.fold([engine.event_from_json(r.payload) for r in rows])
            self._seq = rows[-1].seq
            self._log(f"table {self.id}: game {self.game_id} resumed at event {self._seq}")
        self._load_clock()
        self._last_roll = self._roll_json(roll) if roll is not None and roll.game_id == self.game_id else None

    def _start_game(self, players: Sequence[str], ruleset: str, options: Mapping[str, Any], seed: int | None,
                    existing: store.Game | None = None) -> None:
        if seed is None:
            seed = secrets.randbelow(2**31)
        opening = engine.new_game(players, ruleset, options, seed)
        payloads = [e.to_json() for e in opening]
        with store.session_scope(self.db) as s:
            game = existing or store.create_game(s, table_id=self.id, players=players, ruleset=ruleset,
                                                 options=options, seed=seed)
            assert game.id is not None
            store.append_events(s, game_id=game.id, first_seq=1, events=payloads, source="system")
        self.game_id = game.id
        self._state = engine.fold(opening)
        self._seq = len(opening)
        self._state_json = None
        self._last_roll = None
        self._clock, self._clock_seq, self._clock_key = None, 0, None
        self._load_clock()
        self._log(f"table {self.id}: game {self.game_id} started: {', '.join(players)} ({ruleset}, seed {seed})")

    def new_game(self, players: Sequence[str] | None = None, ruleset: str | None = None,
                 options: Mapping[str, Any] | None = None, seed: int | None = None,
                 clock: engine_clock.ClockConfig | None = None, round_label: str | None = None) -> int:
        """Start the table's next game (the old one stays in the store, complete). `clock`: the new game's
        tournament clock (default: the table's clock config, if any)."""
        with self._lock:
            if clock is not None:
                self._clock_config = clock
            if round_label is not None:
                self.round_label = round_label
            if players is not None:
                self._players = tuple(players)
            self._start_game(players or self._players, ruleset or self._ruleset,
                             self._options if options is None else options, seed)
            self._publish("events", [], roll=None)
            return self.game_id

    # ---- reading ----

    def state(self) -> engine.GameState:
        with self._lock:
            return self._state

    @property
    def seq(self) -> int:
        return self._seq

    def state_json(self) -> dict[str, Any]:
        with self._lock:
            if self._state_json is None:
                self._state_json = self._state.to_json()
            data = dict(self._state_json)
            data["table"] = {"id": self.id, "name": self.name, "game": self.game_id, "seq": self._seq,
                             "camera": self.camera_status(), "last_roll": self._last_roll,
                             "clock": self.clock_json(), "round": self.round_label}
            return data

    def events(self, after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        with store.session_scope(self.db) as s:
            rows = store.load_events(s, game_id=self.game_id, after=after, limit=limit)
        return [event_row(r) for r in rows]

    def last_roll(self) -> dict[str, Any] | None:
        return self._last_roll

    def roll_image(self, n: int) -> Path | None:
        with store.session_scope(self.db) as s:
            row = store.get_roll(s, table_id=self.id, n=n)
        if row is None or not row.image_path:
            return None
        path = Path(row.image_path)
        return path if path.is_file() else None

    def camera_status(self) -> dict[str, Any]:
        return self._camera.to_json()

    def latest_frame_jpeg(self) -> bytes | None:
        frame = self._frame
        if frame is None:
            return None
        cached = self._jpeg
        if cached is not None and cached[0] == frame.index:
            return cached[1]
        import cv2

        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if not ok:
            return None
        data = buf.tobytes()
        self._jpeg = (frame.index, data)
        return data

    # ---- subscribers ----

    def subscribe(self, maxsize: int = 256) -> Subscription:
        return self._subs.subscribe(maxsize)

    @property
    def subscriber_count(self) -> int:
        return len(self._subs)

    def add_listener(self, fn: Callable[[TableService, dict[str, Any]], None]) -> None:
        """Call `fn(service, message)` with every published message (the hall's fan-out). `fn` runs in the
        publishing thread with the table locked: it must be quick and must not call back into the table."""
        with self._listeners_lock:
            self._listeners.append(fn)

    def _publish(self, kind: str, rows: list[dict[str, Any]], roll: dict[str, Any] | None) -> None:
        message: dict[str, Any] = {"kind": kind, "seq": self._seq, "events": rows, "state": self.state_json()}
        if roll is not None:
            message["roll"] = roll
        subs = self._subs.now()
        with self._listeners_lock:
            listeners = list(self._listeners)
        for sub in subs:
            sub.put(message)
        for fn in listeners:
            try:
                fn(self, message)
            except Exception as exc:  # a listener's bug must not stop the table
                self._log(f"table {self.id}: listener failed: {one_line(exc)}")
        for row in rows:
            if row["text"]:
                self._log(f"[{self.id} #{row['seq']} {row['source']}] {row['text']}")
        with self._changed:
            self._changed.notify_all()

    # ---- writing: the one path ----

    def submit(self, command: Mapping[str, Any], *, source: str = "clerk") -> list[dict[str, Any]]:
        """Apply a command, store its events in one transaction, publish them; the stored rows.

        Raises `engine.InvalidCommand` (malformed) or `engine.IllegalCommand` (refused, `.rule`) with the
        log unchanged."""
        if source not in store.SOURCES:
            raise ServiceError(f"unknown source {source!r}")
        parsed = self._parse(command)
        with self._lock:
            events, new_state = engine_game.run(self._state, parsed)
            roll: dict[str, Any] | None = None
            if parsed.type == "roll" and source != "camera":
                dice = [{"value": v} for v in parsed.to_json()["dice"]]
                roll = {"verdict": "ok", "reason": "", "dice": dice, "applied": True,
                        "outcome": f"typed by the {source}", "source": source}
            rows = self._commit(events, new_state, source, roll=roll, image=None)
        return rows

    @staticmethod
    def _parse(command: Mapping[str, Any]) -> engine.Command:
        if not isinstance(command, Mapping):
            raise engine.InvalidCommand(f"a command must be a JSON object, got {type(command).__name__}")
        try:
            return engine.parse_command(command)
        except engine.TablesideError:
            raise
        except (TypeError, KeyError, AttributeError, ValueError) as exc:
            # A shape parse_command did not foresee: still a malformed command, still one line.
            raise engine.InvalidCommand(f"malformed {command.get('type', 'command')}: {one_line(exc)}") from exc

    def record_throw(self, *, verdict: str, reason: str, dice: Sequence[Mapping[str, Any]],
                     image_jpeg: bytes | None = None, source: str = "camera") -> dict[str, Any]:
        """One throw the camera read: stored in the roll log (with its picture), turned into `roll` or
        `void_throw` when the game accepts it, announced either way. Returns the roll record."""
        command, ok = throw_command(verdict, reason, [d.get("value") for d in dice])
        values = command.get("dice", [])
        with self._lock:
            try:
                events, new_state = engine_game.run(self._state, command)
            except (engine.IllegalCommand, engine.InvalidCommand) as exc:
                events, new_state = [], self._state
                outcome = f"not applied: {one_line(exc)}"
            else:
                outcome = f"applied: {values[0]}+{values[1]}" if ok else "roll both dice again"
            roll = {"verdict": verdict, "reason": reason, "dice": [dict(d) for d in dice],
                    "applied": ok and bool(events), "outcome": outcome, "source": source}
            self._commit(events, new_state, source, roll=roll, image=image_jpeg)
            assert self._last_roll is not None
            return self._last_roll

    def _commit(self, events: Sequence[engine.Event], new_state: engine.GameState, source: str,
                roll: dict[str, Any] | None, image: bytes | None) -> list[dict[str, Any]]:
        """Append events (and the roll record) in ONE transaction; only then move the state on."""
        payloads = [e.to_json() for e in events]
        now = datetime.now(UTC)
        roll_row: store.RollRow | None = None
        with store.session_scope(self.db) as s:
            rows = store.append_events(s, game_id=self.game_id, first_seq=self._seq + 1, events=payloads,
                                       source=source, at=now)
            if roll is not None:
                n = store.next_roll_number(s, table_id=self.id)
                path = self._save_image(n, image) if image is not None else None
                roll_row = store.add_roll(
                    s, table_id=self.id, game_id=self.game_id, n=n, verdict=roll["verdict"],
                    reason=roll["reason"], dice=roll["dice"], applied=roll["applied"], outcome=roll["outcome"],
                    first_seq=self._seq + 1 if events else None, image_path=str(path) if path else None,
                    source=roll["source"], at=now)
        # Committed: from here on the events exist, whatever happens to this process.
        self._state = new_state
        self._seq += len(payloads)
        self._state_json = None
        out = [event_row(r) for r in rows]
        roll_json = None
        if roll_row is not None:
            roll_json = self._roll_json(roll_row)
            self._last_roll = roll_json
        if out or roll_json is not None:
            self._publish("roll" if roll_json is not None else "events", out, roll=roll_json)
        return out

    def _save_image(self, n: int, jpeg: bytes) -> Path | None:
        """The annotated frame, written before the row that names it is committed (a crash in between
        leaves a file that the next throw with the same number overwrites, never a row without its file)."""
        if self.image_dir is None:
            return None
        folder = self.image_dir / self.id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.game_id:05d}-{n:06d}.jpg"
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(jpeg)
        os.replace(tmp, path)
        return path

    def _roll_json(self, row: store.RollRow) -> dict[str, Any]:
        values = [d.get("value") for d in row.dice]
        ok = row.verdict == "ok" and len(values) == 2 and all(isinstance(v, int) for v in values)
        return {
            "n": row.n, "verdict": row.verdict, "reason": row.reason, "dice": row.dice,
            "total": sum(values) if ok else None, "doubles": ok and values[0] == values[1],
            "applied": row.applied, "outcome": row.outcome, "source": row.source, "time": store.iso(row.created_at),
            "image": f"/api/tables/{self.id}/rolls/{row.n}.jpg" if row.image_path else None,
        }

    # ---- the tournament clock (engine.clock; stored in clock_events, docs/hall.md) ----

    CLOCK_COMMANDS = ("start", "placement_done", "pause", "resume", "adjust", "end")

    def _load_clock(self) -> None:
        """Fold the current game's clock log; a game without one gets the table's clock config, stored."""
        with store.session_scope(self.db) as s:
            rows = store.load_clock_events(s, game_id=self.game_id)
            if not rows and self._clock_config is not None:
                rows = [store.append_clock_event(
                    s, game_id=self.game_id, seq=1, source="system",
                    payload={"type": "configured", "config": self._clock_config.to_json()})]
        if not rows:
            self._clock, self._clock_seq = None, 0
            return
        config = engine_clock.ClockConfig.from_json(rows[0].payload["config"])
        self._clock = engine_clock.fold(config, [r.payload for r in rows[1:]])
        self._clock_seq = rows[-1].seq

    @property
    def clock(self) -> engine_clock.Clock | None:
        return self._clock

    def clock_view(self, now: float | None = None) -> engine_clock.ClockView | None:
        clock = self._clock
        return None if clock is None else engine_clock.view(clock, self._now() if now is None else now)

    def clock_json(self) -> dict[str, Any] | None:
        """The clock as the pages show it: `engine.clock.ClockView` JSON plus `now` (the service's time, so
        a page counts down from `deadline` with its own offset) and `time_up` (time ran out: running over,
        or ended at time)."""
        now = self._now()
        v = self.clock_view(now)
        if v is None:
            return None
        out = v.to_json()
        out["now"] = now
        out["time_up"] = v.phase == "times_up" or (v.phase == "ended" and v.end_reason == "time")
        out["play_seconds"] = self._clock.config.play_seconds if self._clock is not None else None
        return out

    def clock_command(self, command: Mapping[str, Any], *, source: str = "referee") -> dict[str, Any]:
        """A referee's clock command, `{"type": start | placement_done [player] | pause [reason] | resume |
        adjust seconds | end [reason]}`, stamped with the service's time, checked by `engine.clock.step`
        (IllegalCommand naming C.TIME.* / M.END.2), stored, published. A Monopoly `end` also gives the
        engine its `end_signal` (M.END.2), in the same transaction. Returns `clock_json()`."""
        if not isinstance(command, Mapping):
            raise engine.InvalidCommand("a clock command must be a JSON object")
        kind = command.get("type")
        at = self._now()
        event: engine_clock.ClockEvent
        if kind == "start":
            event = engine_clock.Started(at=at)
        elif kind == "placement_done":
            player = command.get("player")
            if player is not None and not isinstance(player, str):
                raise engine.InvalidCommand("placement_done: player must be a name")
            event = engine_clock.PlacementDone(at=at, player=player)
        elif kind == "pause":
            event = engine_clock.Paused(at=at, reason=str(command.get("reason") or "referee"))
        elif kind == "resume":
            event = engine_clock.Resumed(at=at)
        elif kind == "adjust":
            seconds = command.get("seconds")
            if isinstance(seconds, bool) or not isinstance(seconds, int | float):
                raise engine.InvalidCommand("adjust: seconds must be a number (negative removes time)")
            event = engine_clock.Adjusted(at=at, seconds=float(seconds))
        elif kind == "end":
            event = engine_clock.Ended(at=at, reason=str(command.get("reason") or "referee"))
        else:
            raise engine.InvalidCommand(f"unknown clock command {kind!r}; one of {', '.join(self.CLOCK_COMMANDS)}")
        with self._lock:
            self._clock_event(event, source)
            out = self.clock_json()
            assert out is not None
            return out

    def _clock_event(self, event: engine_clock.ClockEvent, source: str) -> None:
        if self._clock is None:
            raise engine.InvalidCommand(f"table {self.id} has no tournament clock")
        new_clock = engine_clock.step(self._clock, event)  # raises before anything is written
        events: list[engine.Event] = []
        new_state = self._state
        if isinstance(event, engine_clock.Ended) and new_clock.config.kind == "monopoly" \
                and self._state.ending is None and self._state.turn.phase != "game_over":
            events, new_state = engine_game.run(self._state, {"type": "end_signal"})  # M.END.2
        when = datetime.now(UTC)
        with store.session_scope(self.db) as s:
            store.append_clock_event(s, game_id=self.game_id, seq=self._clock_seq + 1, payload=event.to_json(),
                                     source=source, at=when)
            rows = store.append_events(s, game_id=self.game_id, first_seq=self._seq + 1,
                                       events=[e.to_json() for e in events], source="system", at=when)
        self._clock, self._clock_seq = new_clock, self._clock_seq + 1
        self._state = new_state
        self._seq += len(events)
        self._state_json = None
        self._log(f"table {self.id}: clock {event.type} ({source})")
        v = engine_clock.view(new_clock, self._now())
        self._clock_key = (v.phase, v.alerts, v.settlement)
        self._publish("clock", [event_row(r) for r in rows], roll=None)

    def tick(self) -> engine_clock.ClockView | None:
        """Look at the clock now: at Monopoly time up, give the end signal once (source system, the clock's
        Ended at the moment time ran out); publish when the phase or alerts changed (time up, a placement
        minute overrun). The clock thread calls this; tests call it with a fake time source."""
        with self._lock:
            now = self._now()
            v = self.clock_view(now)
            if v is None:
                return None
            if v.needs_end_signal:
                at = max(now - v.overtime, self._clock.last_at or now) if self._clock else now
                self._clock_event(engine_clock.Ended(at=at, reason="time"), "system")
                return self.clock_view(now)
            key = (v.phase, v.alerts, v.settlement)
            if key != self._clock_key:
                self._clock_key = key
                self._publish("clock", [], roll=None)
            return v

    def _clock_loop(self) -> None:
        while not self._stop.is_set():
            wait = 0.5
            try:
                v = self.tick()
                if v is not None and v.deadline is not None:
                    wait = min(wait, max(0.01, v.deadline - self._now() + 0.005))
            except Exception as exc:  # e.g. the database is away: report, try again
                self._log(f"table {self.id}: clock tick failed: {one_line(exc)}")
                wait = 1.0
            self._stop.wait(wait)

    # ---- threads: camera and automatic clerk ----

    def start(self) -> None:
        if self.source is not None:
            self._spawn(self._camera_loop, "camera")
        self._spawn(self._clock_loop, "clock")
        if self.auto_clerk:
            self._spawn(self._auto_clerk_loop, "auto-clerk")

    def _spawn(self, target: Callable[[], None], what: str) -> None:
        t = threading.Thread(target=target, name=f"{self.id}-{what}", daemon=True)
        t.start()
        self._threads.append(t)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        for t in self._threads:
            t.join(timeout)
        if self.source is not None:
            with contextlib.suppress(Exception):
                self.source.close()
        self.close_subscribers()

    def close_subscribers(self) -> None:
        """End every open stream of this table now (a server shutting down); the table keeps running."""
        self._subs.close_all()

    def _set_camera(self, ok: bool, kind: str, detail: str = "", message: str | None = None) -> None:
        """The camera's status: `kind` (CAMERA_WORDS) and its cause; `message` where the source words it."""
        if message is None:
            message = CAMERA_WORDS[kind].format(source=self.source.name, reader=self.reader, detail=detail)
        if self._camera.ok != ok or self._camera.message != message:
            self._camera.ok, self._camera.message = ok, message
            self._camera.kind, self._camera.detail = kind, detail
            self._camera.since = datetime.now(UTC).isoformat()
            self._log(f"table {self.id}: camera {'ok' if ok else 'NOT OK'}: {message}")
            with self._lock:
                self._publish("camera", [], roll=None)

    # ---- the table's physical button (hardware/buttons.py) ----

    def press_confirm(self) -> str:
        """A tap: "roll done". Ends the turn when the rules allow it; otherwise it does nothing, so a
        stray tap can never break a rule. Returns what happened, for the log."""
        state = self.state()
        if state.turn.phase != "post_roll" or state.head is not None:
            self._log(f"table {self.id}: button: nothing to confirm now")
            return "nothing to confirm"
        self.submit({"type": "end_turn"}, source="button")
        return "end_turn"

    def press_undo(self) -> str:
        """A hold: undo the last command (M.PROC.1: a compensating event, nothing deleted)."""
        try:
            self.submit({"type": "undo"}, source="button")
        except (engine.IllegalCommand, engine.InvalidCommand) as exc:
            self._log(f"table {self.id}: button: {one_line(exc)}")
            return one_line(exc)
        return "undo"

    def calibration_outline(self) -> dict[str, Any] | None:
        """The calibrated board (and dice tray) in the pixels of the camera's frames, to draw over its preview
        (the clerk's console): a calibration made from a still of another size is scaled to the frames. None
        without a calibration."""
        cal = self.calibration
        if cal is None:
            return None
        frame = self._frame
        size = frame.size if frame is not None else cal.image_size

        def px(poly: tuple[tuple[float, float], ...]) -> list[list[float]]:
            return [[round(x, 1), round(y, 1)] for x, y in cal.in_frame(poly, size)]

        return {"size": list(size), "board": px(cal.board_polygon),
                "tray": px(cal.tray_polygon) if cal.tray_polygon else None, "source": cal.source}

    def find_corners(self) -> list[list[float]]:
        """The board's four corners in the camera's latest frame, found by its outline (calibration/outline.py),
        in the order the clerk clicks them (top-left, top-right, bottom-right, bottom-left): a proposal for the
        clerk to check and save (set_corners), not saved here. CalibrationError where the frame shows no board."""
        from calibration.fit import order_corners
        from calibration.outline import find_board

        frame = self._frame
        if frame is None:
            raise ServiceError("no camera picture yet to find the board in")
        return [[round(x, 1), round(y, 1)] for x, y in order_corners(find_board(frame.image))]

    def set_corners(self, points: Sequence[tuple[float, float]]) -> dict[str, Any]:
        """Calibrate the camera view from four clicked board corners (a board without markers): stored as a
        new calibration row, then used by the reader and the watcher from the next frame on."""
        from calibration.fit import from_corners_again

        # The corners are clicked on the preview of the camera's own frames: in their pixels, whatever size
        # the calibration they replace was made for (a still taken larger than the camera's frames).
        if self._frame is not None:
            h, w = self._frame.image.shape[:2]
            size = (int(w), int(h))
        elif self.calibration is not None:
            size = self.calibration.image_size
        else:
            raise ServiceError("no camera picture yet to calibrate against")
        # The same table and dice, clicked again: sizes, the dice's look, the lens and the tray stay known.
        cal = from_corners_again(self.calibration, points, size)  # CalibrationError names a bad corner
        with store.session_scope(self.db) as s:
            store.save_calibration(s, table_id=self.id, data=cal.to_json())
        self.calibration = cal
        self._recalibrated.set()
        with self._lock:
            self._publish("camera", [], roll=None)
        return cal.to_json()

    def _make_reader(self) -> Callable[[Any], DiceReading]:
        if self.reader == "sim-truth":
            from hardware.simcam import SimulatedCamera

            cam = self.source
            while cam is not None and not isinstance(cam, SimulatedCamera):
                cam = getattr(cam, "source", None) or getattr(cam, "inner", None)
            if cam is None:
                raise ServiceError("--reader sim-truth needs the simulated camera as the source")
            sim = cam
            # The simulator's ground truth for the frame just read: exact, for demos and tests, while the
            # real reader learns to read rendered dice.
            return lambda _image: sim.truth_reading()
        from vision import read_dice

        cal = self.calibration
        return lambda image: read_dice(image, cal)

    def _make_throw_reader(self) -> Callable[[Any, Any, Any], DiceReading] | None:
        """The real reader reading a throw only where the table changed (vision/change.py), and with the table
        as it looked before the throw (a leaning die's side face shows pips that were not there); it measures
        its windows in dice, so only with a calibrated die size."""
        if self.reader != "real" or self.calibration is None or not self.calibration.die_size_px:
            return None
        from vision import read_dice

        cal = self.calibration
        return lambda image, boxes, before: read_dice(image, cal, changed=boxes, before=before)

    def _camera_loop(self) -> None:
        from hardware.sources import RetryingSource, SourceError
        from vision.watcher import RollWatcher, WatcherConfig

        assert self.source is not None
        self._camera.source = self.source.name
        # The calibration first: the reader is bound to it (a reader made before would read uncalibrated).
        if self.calibration is None and hasattr(self.source, "calibration"):
            self.calibration = self.source.calibration()
        if self.calibration is not None:
            self._settle_calibration()
        try:
            reader = self._make_reader()
        except ServiceError as exc:
            self._set_camera(False, "no_reader", one_line(exc))
            return
        watcher = RollWatcher(reader=reader, calibration=self.calibration,
                              config=self.watcher_config or WatcherConfig(),
                              throw_reader=self._make_throw_reader())
        lost_since: list[bool] = [False]

        def on_status(ok: bool, message: str) -> None:
            if ok:
                watcher.reset()  # the scene before the loss is no reference for what the camera sees now
            lost_since[0] = not ok
            self._set_camera(ok, "back" if ok else "lost", "" if ok else source.lost or "", message)

        source = RetryingSource(self.source, on_status=on_status, retry_s=1.0)
        while not self._stop.is_set():  # a camera missing at start-up is retried like a lost one
            try:
                source.open()
                break
            except SourceError as exc:
                self._set_camera(False, "cant_open", one_line(exc))
                self._stop.wait(1.0)
        if self._stop.is_set():
            return
        self._set_camera(True, "reading")
        misfit_shown = False  # the status says the calibration is for another shape of frame
        while not self._stop.is_set():
            try:
                frame = source.read_nowait()
            except Exception as exc:  # a source bug must not take the table down
                self._set_camera(False, "failed", one_line(exc))
                self._stop.wait(1.0)
                continue
            if frame is None:
                if source.lost is not None:
                    self._stop.wait(0.05)
                    continue
                self._set_camera(False, "ended")
                return
            self._frame = frame
            self._camera.frames += 1
            if self._recalibrated.is_set():
                self._recalibrated.clear()
                reader = self._make_reader()
                watcher = RollWatcher(reader=reader, calibration=self.calibration,
                                      config=self.watcher_config or WatcherConfig(),
                                      throw_reader=self._make_throw_reader())
            misfit = self._misfit(frame.size)
            if misfit:
                # Nothing is read with a calibration for another shape of frame; the preview stays, for the
                # clerk to click the board's corners on.
                self._set_camera(False, "misfit", misfit)
                misfit_shown = True
                continue
            if misfit_shown:
                misfit_shown = False
                self._set_camera(True, "reading")
            try:
                event = watcher.feed(frame)
                if event is not None:
                    self._camera.throws += 1
                    self._on_roll_event(event)
            except Exception as exc:  # e.g. the database is away: report, keep watching
                self._log(f"table {self.id}: throw not recorded: {one_line(exc)}")
                self._set_camera(True, "not_recorded", one_line(exc))

    def _settle_calibration(self) -> None:
        """The calibration given at start-up against the table's stored ones: one stored after the given one
        was made (`calibration_made`: corners clicked in the clerk's console since the file was written; a
        unit restarted with the same --calibration lost them) wins; otherwise the given one is stored as the
        table's latest. A file written after the clicks (calibrated again) wins over them."""
        from calibration.model import Calibration

        assert self.calibration is not None
        given = self.calibration.to_json()
        with store.session_scope(self.db) as s:
            latest = store.latest_calibration(s, table_id=self.id)
            if latest is not None and latest.data != given and self.calibration_made is not None:
                stored = store.as_utc(latest.created_at)
                if stored > self.calibration_made:
                    self.calibration = Calibration.from_json(latest.data)
                    self._log(f"table {self.id}: using the calibration stored {stored:%Y-%m-%d %H:%M} UTC "
                              f"({self.calibration.source}), newer than the calibration file")
                    return
            if latest is None or latest.data != given:
                store.save_calibration(s, table_id=self.id, data=given)

    def _misfit(self, frame_wh: tuple[int, int]) -> str:
        """Why the table's calibration cannot read frames of `frame_wh` ("" where it can)."""
        if self.calibration is None:
            return ""
        try:
            self.calibration.check_frame(frame_wh)
        except ValueError as exc:
            return one_line(exc)
        return ""

    def _on_roll_event(self, event: RollEvent) -> None:
        import cv2

        from vision.draw import annotate

        reading = event.reading
        polygon = self.calibration.play_polygon_in(event.frame.size) if self.calibration is not None else None
        picture = annotate(event.frame.image, reading, polygon)
        ok, buf = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
        self.record_throw(verdict=reading.verdict.value, reason=reading.reason,
                          dice=[d.to_json() for d in reading.dice], image_jpeg=buf.tobytes() if ok else None)

    def _auto_clerk_loop(self) -> None:
        """Demo tables: decide what the camera can't see, a moment after it becomes the question."""
        while not self._stop.is_set():
            with self._lock:
                seq, state = self._seq, self._state
            decision = auto_decision(state)
            if decision is None:
                if state.turn.phase == "game_over":
                    self._stop.wait(10.0)  # let the result stand a while, then the demo plays again
                    if not self._stop.is_set():
                        self.new_game()
                    continue
                with self._changed:
                    if self._seq == seq:
                        self._changed.wait(1.0)
                continue
            self._stop.wait(self.auto_clerk_delay_s)
            with self._lock:
                if self._seq != seq:
                    continue  # someone else answered meanwhile
                try:
                    self.submit(decision, source="system")
                except (engine.IllegalCommand, engine.InvalidCommand) as exc:
                    self._log(f"table {self.id}: automatic clerk refused: {one_line(exc)}")
                    self._stop.wait(1.0)


class TableRegistry:
    """All tables served by this process."""

    def __init__(self, services: Sequence[TableService] = ()) -> None:
        self._tables: dict[str, TableService] = {}
        for s in services:
            self.add(s)

    def add(self, service: TableService) -> TableService:
        if service.id in self._tables:
            raise ServiceError(f"table {service.id!r} is already served")
        self._tables[service.id] = service
        return service

    def tables(self) -> list[TableService]:
        return list(self._tables.values())

    def get(self, table_id: str) -> TableService:
        return self._tables[table_id]

    def start(self) -> None:
        for s in self._tables.values():
            s.start()

    def stop(self) -> None:
        for s in self._tables.values():
            s.stop()


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.02) -> bool:
    """Poll `predicate` until it is true or `timeout` passes (tests and the CLI's start-up checks)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
