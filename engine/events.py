"""Events: the facts the engine records. `evolve` folds them into state; the store keeps them forever.

Every chance outcome (dice thrown, card order, the card drawn) is an event field, so replaying a log never
needs a random generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from engine.errors import InvalidCommand
from engine.state import Pending, Turn, pending_from_json


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Pending | Turn):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class GameStarted(Event):
    type: ClassVar[str] = "game_started"
    players: tuple[str, ...]
    options: dict[str, Any]
    decks: dict[str, tuple[str, ...]]  # the shuffled order, top first (M.SETUP.3)
    seed: int | None = None


@dataclass(frozen=True)
class CommandAccepted(Event):
    """Marks the start of one command's events: the unit that `undo` takes back (M.PROC.1)."""

    type: ClassVar[str] = "command"
    command: dict[str, Any]


@dataclass(frozen=True)
class Undone(Event):
    type: ClassVar[str] = "undone"
    command: dict[str, Any]  # the command taken back, for the log


@dataclass(frozen=True)
class DiceRolled(Event):
    type: ClassVar[str] = "dice_rolled"
    player: str
    dice: tuple[int, int]
    purpose: str  # move | jail | utility_rent | start_order


@dataclass(frozen=True)
class ThrowVoided(Event):
    type: ClassVar[str] = "throw_voided"
    player: str
    reason: str


@dataclass(frozen=True)
class TurnSet(Event):
    type: ClassVar[str] = "turn"
    turn: Turn


@dataclass(frozen=True)
class PendingSet(Event):
    type: ClassVar[str] = "pending"
    pending: tuple[Pending, ...]


@dataclass(frozen=True)
class Moved(Event):
    type: ClassVar[str] = "moved"
    player: str
    start: int
    to: int
    passed_go: bool
    how: str  # dice | card


@dataclass(frozen=True)
class CashMoved(Event):
    type: ClassVar[str] = "cash"
    payer: str | None  # None: the bank
    payee: str | None
    amount: int
    reason: str
    rule: str = ""


@dataclass(frozen=True)
class DeedTransferred(Event):
    type: ClassVar[str] = "deed"
    deed: str
    owner: str | None
    reason: str = ""


@dataclass(frozen=True)
class DeedMortgaged(Event):
    type: ClassVar[str] = "mortgage"
    deed: str
    mortgaged: bool


@dataclass(frozen=True)
class BuildingsSet(Event):
    type: ClassVar[str] = "buildings"
    deed: str
    houses: int
    hotel: bool


@dataclass(frozen=True)
class CardDrawn(Event):
    type: ClassVar[str] = "card_drawn"
    player: str
    card: str  # full id; the card goes to the bottom of its deck unless it is kept (M.CARD.1-2)
    kept: bool = False


@dataclass(frozen=True)
class JailCardReturned(Event):
    type: ClassVar[str] = "jail_card_returned"
    player: str
    card: str


@dataclass(frozen=True)
class JailCardGiven(Event):
    type: ClassVar[str] = "jail_card_given"
    card: str
    giver: str
    receiver: str


@dataclass(frozen=True)
class SentToJail(Event):
    type: ClassVar[str] = "sent_to_jail"
    player: str
    reason: str


@dataclass(frozen=True)
class LeftJail(Event):
    type: ClassVar[str] = "left_jail"
    player: str
    how: str  # fine | card | doubles | third_roll


@dataclass(frozen=True)
class JailRollFailed(Event):
    type: ClassVar[str] = "jail_roll_failed"
    player: str


@dataclass(frozen=True)
class StartOrderSet(Event):
    type: ClassVar[str] = "start_order"
    order: tuple[str, ...]


@dataclass(frozen=True)
class PlayerBankrupt(Event):
    type: ClassVar[str] = "bankrupt"
    player: str
    creditor: str | None
    batch: int = 0  # M.BK.5: same card, same batch
    cash_at: int = 0


@dataclass(frozen=True)
class GameEnded(Event):
    type: ClassVar[str] = "game_ended"
    ranking: tuple[str, ...]
    reason: str
    winner: str | None = None  # M.END.1; on time only if leading on assets counts (M.END.5)


@dataclass(frozen=True)
class Traded(Event):
    """M.TRADE.6: a completed trade, announced (the transfers themselves follow as their own events)."""

    type: ClassVar[str] = "traded"
    giver: str
    receiver: str
    give: dict[str, Any]
    get: dict[str, Any]
    turn_number: int = 0
    context: str = "between_turns"  # between_turns | debt | rescue


@dataclass(frozen=True)
class BuildDeclared(Event):
    """M.BUILD.5: a declaration (or its withdrawal, count < 0, or voiding) recorded for the log."""

    type: ClassVar[str] = "build_declared"
    player: str
    deed: str
    count: int
    hotel: bool = False
    note: str = ""


@dataclass(frozen=True)
class EndSignalled(Event):
    """M.END.2: the time game's end signal."""

    type: ClassVar[str] = "end_signalled"
    last_turn: int
    play_doubles: bool


@dataclass(frozen=True)
class RefereeAdjusted(Event):
    """A referee's correction of the table state (M.PROC.1-2), e.g. to set up a position."""

    type: ClassVar[str] = "referee"
    changes: dict[str, Any]
    note: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        GameStarted, CommandAccepted, Undone, DiceRolled, ThrowVoided, TurnSet, PendingSet, Moved,
        CashMoved, DeedTransferred, DeedMortgaged, BuildingsSet, CardDrawn, JailCardReturned,
        JailCardGiven, SentToJail, LeftJail, JailRollFailed, StartOrderSet, PlayerBankrupt, GameEnded,
        RefereeAdjusted, Traded, BuildDeclared, EndSignalled,
    )
}


def event_from_json(data: Mapping[str, Any]) -> Event:
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise InvalidCommand(f"unknown event type {kind!r}")
    cls = EVENT_TYPES[kind]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name == "turn":
            d = dict(value)
            d["last_dice"] = tuple(d["last_dice"]) if d.get("last_dice") else None
            value = Turn(**d)
        elif f.name == "pending":
            value = tuple(pending_from_json(p) for p in value)
        elif f.name == "decks":
            value = {k: tuple(v) for k, v in value.items()}
        elif f.name in ("changes", "options", "command", "give", "get"):
            value = dict(value)
        elif isinstance(value, list):
            value = _tuplify(value)
        kwargs[f.name] = value
    return cls(**kwargs)


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value
