"""A table's tournament clock, event-sourced like the rest of the engine and free of any wall clock.

Every clock event carries the time it happened (`at`, seconds on whatever monotonic or epoch scale the
caller uses; the clock only ever subtracts two of them). `step(clock, event)` checks the event against the
rules and returns the next `Clock`, or raises `IllegalCommand` naming the rule; `fold(config, events)`
replays a stored log. `view(clock, now)` is the pure read side: phase, seconds left, whose placement turn
it is, alerts. The service decides *when* to call `view`; nothing here reads the time.

Game kinds (`ClockConfig.kind`):

- `monopoly` — the time game (M.END.2): one play phase of the event's time limit (90 minutes unless the
  event sets its own). At time up the clock says `needs_end_signal`: the table must then give the engine
  its `end_signal` command (the final turn is played out by the engine, not timed here) and record
  `ended` on the clock.
- `catan` — the qualifier (C.TIME.1-2): initial placement of 2 settlements per player in snake order
  (1-2-3-4-4-3-2-1), one minute per settlement; whoever finishes early hands over at once (the next
  settlement's minute starts at the `placement_done`); play starts the moment the last settlement is
  placed and lasts 60 minutes (8 + 60 = 68 minutes at most, when no one overruns). The referee's end
  signal (`ended`) ends the game at once, mid-action (C.TIME.2).

Both kinds: a referee call pauses the clock and the paused time is added (C.TIME.3) — simply because game
time does not run while paused. Time can be added or removed (`adjusted`) only while paused, so the
change is always a referee's deliberate act at a stopped table (C.TIME.2: "the referee may extend").

Game time, the one quantity everything is measured in, is `(now - started_at) - paused seconds`, frozen
while paused and after the end. The current phase (one settlement's minute, or play) began at game time
`phase_start` and has `phase_budget` seconds; remaining = phase_start + phase_budget - game time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from engine.errors import IllegalCommand, InvalidCommand

Kind = Literal["monopoly", "catan"]
Phase = Literal["not_started", "placement", "play", "paused", "times_up", "ended"]

MONOPOLY_DEFAULT_SECONDS = 90 * 60  # M.END.2: "90 minutes is usual; tournaments set their own"
CATAN_PLAY_SECONDS = 60 * 60  # C.TIME.1: play 60 minutes
CATAN_SECONDS_PER_SETTLEMENT = 60  # C.TIME.1: one minute per settlement
CATAN_SETTLEMENTS_PER_PLAYER = 2  # C.TIME.1: eight settlements at a four-player table

# The rule each kind's clock commands are refused under. Catan's tournament rules name every case; the JMA
# Monopoly rules only know the agreed end time (M.END.2), so every Monopoly clock refusal cites it.
_RULES: dict[str, dict[str, str]] = {
    "catan": {"start": "C.TIME.1", "placement": "C.TIME.1", "pause": "C.TIME.3", "adjust": "C.TIME.2",
              "end": "C.TIME.2"},
    "monopoly": {"start": "M.END.2", "placement": "M.END.2", "pause": "M.END.2", "adjust": "M.END.2",
                 "end": "M.END.2"},
}


@dataclass(frozen=True)
class ClockConfig:
    """What a table's clock is set to before it starts. `players` in seat order (the first places first);
    only Catan's placement turns use them."""

    kind: Kind
    play_seconds: float
    players: tuple[str, ...] = ()
    seconds_per_settlement: float = CATAN_SECONDS_PER_SETTLEMENT

    @property
    def settlements(self) -> int:
        """C.TIME.1: two settlements each (eight at four players; six at a three-player table, C.TABLE.1)."""
        return CATAN_SETTLEMENTS_PER_PLAYER * len(self.players) if self.kind == "catan" else 0

    @property
    def placement_order(self) -> tuple[str, ...]:
        """Snake order of the initial placement: 1-2-3-4, then 4-3-2-1 (the fourth places twice running,
        still one minute per settlement: C.TIME.1)."""
        return (*self.players, *reversed(self.players)) if self.kind == "catan" else ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "play_seconds": self.play_seconds, "players": list(self.players),
                "seconds_per_settlement": self.seconds_per_settlement}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ClockConfig:
        return ClockConfig(kind=data["kind"], play_seconds=data["play_seconds"],
                           players=tuple(data.get("players", ())),
                           seconds_per_settlement=data.get("seconds_per_settlement", CATAN_SECONDS_PER_SETTLEMENT))


def monopoly_config(minutes: float = MONOPOLY_DEFAULT_SECONDS / 60) -> ClockConfig:
    """M.END.2: the time game's limit, set by the event (90 minutes by default)."""
    if minutes <= 0:
        raise InvalidCommand("the time limit must be positive")
    return ClockConfig(kind="monopoly", play_seconds=minutes * 60)


def catan_config(players: Iterable[str], play_minutes: float = CATAN_PLAY_SECONDS / 60) -> ClockConfig:
    """C.TIME.1: the qualifier clock for these players in seat order (three or four, C.TABLE.1)."""
    seats = tuple(players)
    if not 3 <= len(seats) <= 4 or len(set(seats)) != len(seats):
        raise InvalidCommand("a Catan table seats three or four different players (C.TABLE.1)")
    if play_minutes <= 0:
        raise InvalidCommand("the play time must be positive")
    return ClockConfig(kind="catan", play_seconds=play_minutes * 60, players=seats)


# ---- events: what happened at the table, with when ----


@dataclass(frozen=True)
class ClockEvent:
    type: ClassVar[str] = ""
    at: float

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        out.update(self.__dict__)
        return out


@dataclass(frozen=True)
class Started(ClockEvent):
    """The referee's start signal: Catan's placement (or Monopoly's play) begins."""

    type: ClassVar[str] = "started"


@dataclass(frozen=True)
class PlacementDone(ClockEvent):
    """Catan: the player on turn has placed one settlement (and its road). `player`, when given, must be the
    one on turn: a check against tapping the wrong seat."""

    type: ClassVar[str] = "placement_done"
    player: str | None = None


@dataclass(frozen=True)
class Paused(ClockEvent):
    """A suspected violation: the game stops and the referee is called (C.TIME.3)."""

    type: ClassVar[str] = "paused"
    reason: str = "referee"


@dataclass(frozen=True)
class Resumed(ClockEvent):
    type: ClassVar[str] = "resumed"


@dataclass(frozen=True)
class Adjusted(ClockEvent):
    """The referee adds (`seconds` > 0) or removes (< 0) time of the current phase, only while paused."""

    type: ClassVar[str] = "adjusted"
    seconds: float = 0.0


@dataclass(frozen=True)
class Ended(ClockEvent):
    """The end signal (C.TIME.2, M.END.2). `reason`: `time` (the signal at time up), `win` (C.WIN.1 or
    M.END.1 ended it early), `referee`, or anything the caller records."""

    type: ClassVar[str] = "ended"
    reason: str = "time"


EVENT_TYPES: dict[str, type[ClockEvent]] = {
    cls.type: cls for cls in (Started, PlacementDone, Paused, Resumed, Adjusted, Ended)
}


def event_from_json(data: Mapping[str, Any]) -> ClockEvent:
    """`{"type": "paused", "at": 12.5, "reason": "referee"}` -> `Paused(...)`; unknown type or fields refused."""
    cls = EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        raise InvalidCommand(f"unknown clock event {data.get('type')!r}; known: {', '.join(EVENT_TYPES)}")
    args = {k: v for k, v in data.items() if k != "type"}
    if "at" not in args:
        raise InvalidCommand(f"clock event {cls.type} needs 'at'")
    try:
        return cls(**args)
    except TypeError as exc:
        raise InvalidCommand(f"bad clock event {cls.type}: {exc}") from None


# ---- state ----


@dataclass(frozen=True)
class Clock:
    config: ClockConfig
    started_at: float | None = None
    last_at: float | None = None  # time of the last event: events must not go back in time
    paused_at: float | None = None  # set while paused
    pause_reason: str | None = None
    paused_seconds: float = 0.0  # completed pauses, all added to the game (C.TIME.3)
    pauses: int = 0
    placed: int = 0  # Catan settlements placed so far (C.TIME.1)
    phase_start: float = 0.0  # game time at which the current phase (settlement minute, or play) began
    phase_budget: float = 0.0  # seconds that phase has, adjustments included
    adjusted_seconds: float = 0.0  # net referee adjustments, all phases
    ended_at: float | None = None
    end_reason: str | None = None
    log: tuple[ClockEvent, ...] = field(default=(), repr=False)

    @property
    def rules(self) -> dict[str, str]:
        return _RULES[self.config.kind]

    @property
    def in_placement(self) -> bool:
        return self.started_at is not None and self.placed < self.config.settlements

    def game_time(self, now: float) -> float:
        """Seconds the game has run by `now`: stopped while paused (C.TIME.3) and at the end."""
        if self.started_at is None:
            return 0.0
        stop = now
        if self.paused_at is not None:
            stop = self.paused_at
        if self.ended_at is not None:
            stop = min(stop, self.ended_at)
        return max(0.0, stop - self.started_at - self.paused_seconds)

    def phase_remaining(self, now: float) -> float:
        """Seconds left in the current phase; negative once it has run out."""
        return self.phase_start + self.phase_budget - self.game_time(now)

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config.to_json(), "events": [e.to_json() for e in self.log]}


def new_clock(config: ClockConfig) -> Clock:
    return Clock(config=config)


def clock_from_json(data: Mapping[str, Any]) -> Clock:
    """The inverse of `Clock.to_json`: the config and the event log, replayed (and so re-checked)."""
    return fold(ClockConfig.from_json(data["config"]), data.get("events", ()))


# ---- applying events: each checks the rules, then returns the next clock ----


def _start(c: Clock, e: ClockEvent) -> Clock:
    if c.started_at is not None:
        raise IllegalCommand(c.rules["start"], "the clock has already started")
    if c.config.kind == "catan":
        # C.TIME.1: the first settlement's minute starts with the clock.
        return replace(c, started_at=e.at, phase_start=0.0, phase_budget=c.config.seconds_per_settlement)
    return replace(c, started_at=e.at, phase_start=0.0, phase_budget=c.config.play_seconds)  # M.END.2


def _running(c: Clock, rule: str, what: str) -> None:
    if c.started_at is None:
        raise IllegalCommand(rule, f"cannot {what}: the clock has not started")
    if c.ended_at is not None:
        raise IllegalCommand(rule, f"cannot {what}: the game has ended")


def _placement_done(c: Clock, e: ClockEvent) -> Clock:
    assert isinstance(e, PlacementDone)
    rule = c.rules["placement"]
    if c.config.kind != "catan":
        raise IllegalCommand(rule, "this game has no timed initial placement")
    _running(c, rule, "place")
    if c.paused_at is not None:
        raise IllegalCommand("C.TIME.3", "the game is paused for the referee")
    if not c.in_placement:
        raise IllegalCommand(rule, "the initial placement is over")
    on_turn = c.config.placement_order[c.placed]
    if e.player is not None and e.player != on_turn:
        raise IllegalCommand(rule, f"it is {on_turn}'s placement, not {e.player}'s")
    now = c.game_time(e.at)
    placed = c.placed + 1
    if placed < c.config.settlements:
        # C.TIME.1: an early finish hands over at once — the next minute starts now, unused time is not kept.
        return replace(c, placed=placed, phase_start=now, phase_budget=c.config.seconds_per_settlement)
    # C.TIME.1: everyone has placed: play starts at once, for its full 60 minutes.
    return replace(c, placed=placed, phase_start=now, phase_budget=c.config.play_seconds)


def _pause(c: Clock, e: ClockEvent) -> Clock:
    assert isinstance(e, Paused)
    rule = c.rules["pause"]
    _running(c, rule, "pause")
    if c.paused_at is not None:
        raise IllegalCommand(rule, "the clock is already paused")
    return replace(c, paused_at=e.at, pause_reason=e.reason, pauses=c.pauses + 1)


def _resume(c: Clock, e: ClockEvent) -> Clock:
    rule = c.rules["pause"]
    _running(c, rule, "resume")
    if c.paused_at is None:
        raise IllegalCommand(rule, "the clock is not paused")
    # C.TIME.3: the paused time is added — it simply never counted as game time.
    return replace(c, paused_at=None, pause_reason=None, paused_seconds=c.paused_seconds + e.at - c.paused_at)


def _adjust(c: Clock, e: ClockEvent) -> Clock:
    assert isinstance(e, Adjusted)
    rule = c.rules["adjust"]
    _running(c, rule, "adjust the time")
    if c.paused_at is None:
        # Changing a running clock would let a tap at the wrong table shift a live game; the referee stops it.
        raise IllegalCommand(rule, "time can be added or removed only while the clock is paused")
    if e.seconds == 0:
        raise InvalidCommand("an adjustment of zero seconds")
    return replace(c, phase_budget=c.phase_budget + e.seconds, adjusted_seconds=c.adjusted_seconds + e.seconds)


def _end(c: Clock, e: ClockEvent) -> Clock:
    assert isinstance(e, Ended)
    rule = c.rules["end"]
    _running(c, rule, "end the game")
    # C.TIME.2: the game ends at once, mid-action. Ending during a pause closes the pause at the signal.
    paused = c.paused_seconds + (e.at - c.paused_at if c.paused_at is not None else 0.0)
    return replace(c, ended_at=e.at, end_reason=e.reason, paused_at=None, pause_reason=None, paused_seconds=paused)


_APPLY: dict[type[ClockEvent], Callable[[Clock, ClockEvent], Clock]] = {
    Started: _start,
    PlacementDone: _placement_done,
    Paused: _pause,
    Resumed: _resume,
    Adjusted: _adjust,
    Ended: _end,
}


def step(clock: Clock, event: ClockEvent) -> Clock:
    """Apply one event, or raise `IllegalCommand` (rule broken) / `InvalidCommand` (malformed); the given
    clock is never changed."""
    apply = _APPLY.get(type(event))
    if apply is None:
        raise InvalidCommand(f"not a clock event: {event!r}")
    if clock.last_at is not None and event.at < clock.last_at:
        raise InvalidCommand(f"clock event at {event.at} is earlier than the last one ({clock.last_at})")
    nxt = apply(clock, event)
    return replace(nxt, last_at=event.at, log=(*clock.log, event))


def fold(config: ClockConfig, events: Iterable[ClockEvent | Mapping[str, Any]]) -> Clock:
    """Replay a log (events or their JSON) from a fresh clock."""
    clock = new_clock(config)
    for e in events:
        clock = step(clock, e if isinstance(e, ClockEvent) else event_from_json(e))
    return clock


def play_counts(clock: Clock, at: float) -> bool:
    """Whether a table action at `at` counts: after the end signal plays are void (C.TIME.2), and nothing is
    played while the referee has the game stopped (C.TIME.3)."""
    if clock.started_at is None or at < clock.started_at:
        return False
    if clock.ended_at is not None and at >= clock.ended_at:
        return False
    paused_from: float | None = None
    for e in clock.log:  # past pauses too: an action stamped inside one did not count either
        if isinstance(e, Paused):
            paused_from = e.at
        elif isinstance(e, Resumed) and paused_from is not None:
            if paused_from <= at < e.at:
                return False
            paused_from = None
    return not (paused_from is not None and at >= paused_from)


# ---- the read side ----


@dataclass(frozen=True)
class ClockView:
    """What the table dashboard and the hall show at `now`. Seconds are floats; round them for display.

    `phase_remaining`: left in the current phase (Catan placement: the settlement on turn's minute), never
    negative; `overtime`: how far past it. `total_remaining`: to the end of play if every remaining
    settlement took its full minute. `deadline`: the `now`-scale time at which the phase runs out while the
    clock runs (None when stopped), so a display can count down between polls.
    """

    kind: str
    phase: Phase
    paused_phase: Phase | None  # the phase under a pause
    phase_remaining: float
    overtime: float
    total_remaining: float
    game_seconds: float
    placement_turn: str | None
    settlement: int | None  # 1-based number of the settlement on turn (C.TIME.1)
    settlements: int
    placement_remaining: float
    paused_seconds: float  # all pauses so far, ongoing included: time added to the game (C.TIME.3)
    adjusted_seconds: float
    alerts: tuple[str, ...]
    sound: bool  # time's up: the hall and the table should sound
    needs_end_signal: bool  # Monopoly at time up: give the engine its `end_signal` (M.END.2)
    deadline: float | None
    end_reason: str | None
    pause_reason: str | None

    def to_json(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["alerts"] = list(self.alerts)
        return out


def _phase(c: Clock, now: float) -> Phase:
    """The phase as if not paused."""
    if c.started_at is None:
        return "not_started"
    if c.ended_at is not None:
        return "ended"
    if c.in_placement:
        return "placement"  # an overrun settlement stays in placement (alert), the next starts on the tap
    return "times_up" if c.phase_remaining(now) <= 0 else "play"


def view(clock: Clock, now: float) -> ClockView:
    c = clock
    cfg = c.config
    base = _phase(c, now)
    paused = c.paused_at is not None and base != "ended"
    phase: Phase = "paused" if paused else base
    left = c.phase_remaining(now) if base in ("placement", "play", "times_up") else 0.0
    if base == "not_started":
        left = cfg.seconds_per_settlement if cfg.kind == "catan" else cfg.play_seconds
    remaining = max(0.0, left)
    overtime = max(0.0, -left) if base in ("placement", "play", "times_up") else 0.0
    turn: str | None = None
    settlement: int | None = None
    placement_left = 0.0
    if base == "placement" or (base == "not_started" and cfg.settlements > 0):
        turn = cfg.placement_order[c.placed]
        settlement = c.placed + 1
        later = cfg.settlements - c.placed - 1
        placement_left = remaining + later * cfg.seconds_per_settlement
        total = placement_left + cfg.play_seconds
    elif base in ("play", "times_up", "not_started"):
        total = remaining
    else:
        total = 0.0
    alerts: list[str] = []
    if paused:
        alerts.append("referee_called" if c.pause_reason == "referee" else "paused")  # C.TIME.3
    if base == "placement" and left <= 0:
        alerts.append("placement_overdue")  # C.TIME.1: each settlement within its minute
    if base == "times_up":
        alerts.append("times_up")
    ongoing_pause = now - c.paused_at if c.paused_at is not None and base != "ended" else 0.0
    running = base in ("placement", "play") and not paused
    return ClockView(
        kind=cfg.kind,
        phase=phase,
        paused_phase=base if paused else None,
        phase_remaining=remaining,
        overtime=overtime,
        total_remaining=total,
        game_seconds=c.game_time(now),
        placement_turn=turn,
        settlement=settlement,
        settlements=cfg.settlements,
        placement_remaining=placement_left,
        paused_seconds=c.paused_seconds + max(0.0, ongoing_pause),
        adjusted_seconds=c.adjusted_seconds,
        alerts=tuple(alerts),
        sound=base == "times_up" and not paused,
        needs_end_signal=cfg.kind == "monopoly" and base == "times_up" and not paused,  # M.END.2
        deadline=now + left if running else None,
        end_reason=c.end_reason,
        pause_reason=c.pause_reason if paused else None,
    )
