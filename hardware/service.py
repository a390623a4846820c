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
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

import engine
from engine import clock as engine_clock
from engine import game as engine_game
from hardware import store
from hardware.autoclerk import auto_decision, throw_command
from hardware.errors import ServiceError, one_line
from hardware.pubsub import Subscribers, Subscription, event_row
from hardware.tablecamera import CameraStatus, TableCamera

if TYPE_CHECKING:
    from calibration.model import Calibration
    from hardware.sources import FrameSource
    from vision.watcher import Frame, WatcherConfig

DEFAULT_PLAYERS = ("Aiko", "Ben", "Chie", "Dan")
READERS = ("real", "sim-truth")


class TableService(TableCamera):
    """One table: its current game, its camera (hardware/tablecamera.py), its subscribers. Thread-safe."""

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
