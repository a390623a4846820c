"""Commands: what a player, the clerk or the camera asks of the engine (the vocabulary in DESIGN.md)."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar

from engine.errors import InvalidCommand


@dataclass(frozen=True)
class Command:
    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or (f.default is not MISSING and value == f.default and f.name != "player"):
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class Roll(Command):
    """Dice thrown and read (by the camera or typed in): move, try for doubles in jail, utility rent,
    or the start-order roll-off, whichever the state calls for."""

    type: ClassVar[str] = "roll"
    dice: tuple[int, int]
    player: str | None = None


@dataclass(frozen=True)
class VoidThrow(Command):
    """A throw that does not count (M.DICE.1-2): recorded, changes nothing else."""

    type: ClassVar[str] = "void_throw"
    reason: str = "void"
    player: str | None = None


@dataclass(frozen=True)
class Buy(Command):
    type: ClassVar[str] = "buy"
    player: str | None = None


@dataclass(frozen=True)
class Decline(Command):
    type: ClassVar[str] = "decline"
    player: str | None = None


@dataclass(frozen=True)
class Bid(Command):
    type: ClassVar[str] = "bid"
    player: str
    amount: int
    tie: bool = False  # called at the same moment as the standing bid (M.AUC.3)


@dataclass(frozen=True)
class PassBid(Command):
    type: ClassVar[str] = "pass_bid"
    player: str


@dataclass(frozen=True)
class PayJailFine(Command):
    type: ClassVar[str] = "pay_jail_fine"
    player: str | None = None


@dataclass(frozen=True)
class UseJailCard(Command):
    type: ClassVar[str] = "use_jail_card"
    player: str | None = None
    deck: str | None = None  # which card to use when holding both


@dataclass(frozen=True)
class DrawCard(Command):
    type: ClassVar[str] = "draw_card"
    deck: str | None = None
    card: str | None = None  # the card actually drawn at the table; omitted: the seeded deck decides


@dataclass(frozen=True)
class ChooseTax(Command):
    type: ClassVar[str] = "choose_tax"
    option: str  # flat | percent (M.TAX.1, classic)
    player: str | None = None


@dataclass(frozen=True)
class Mortgage(Command):
    type: ClassVar[str] = "mortgage"
    deed: str
    player: str | None = None


@dataclass(frozen=True)
class Unmortgage(Command):
    type: ClassVar[str] = "unmortgage"
    deed: str
    player: str | None = None


@dataclass(frozen=True)
class PayDebt(Command):
    type: ClassVar[str] = "pay_debt"
    player: str | None = None


@dataclass(frozen=True)
class DeclareBankruptcy(Command):
    type: ClassVar[str] = "declare_bankruptcy"
    player: str | None = None


@dataclass(frozen=True)
class EndTurn(Command):
    type: ClassVar[str] = "end_turn"
    player: str | None = None


@dataclass(frozen=True)
class Undo(Command):
    type: ClassVar[str] = "undo"


@dataclass(frozen=True)
class RefereeSet(Command):
    """A referee's correction (M.PROC.1-2): set state fields by dotted path, e.g. to set up a position."""

    type: ClassVar[str] = "referee_set"
    changes: dict[str, Any] = field(default_factory=dict)
    note: str = ""


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.type: cls
    for cls in (
        Roll, VoidThrow, Buy, Decline, Bid, PassBid, PayJailFine, UseJailCard, DrawCard, ChooseTax,
        Mortgage, Unmortgage, PayDebt, DeclareBankruptcy, EndTurn, Undo, RefereeSet,
    )
}


def _check(cls_name: str, name: str, hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _check(cls_name, name, inner[0], value)
    if hint is str:
        if not isinstance(value, str) or not value:
            raise InvalidCommand(f"{cls_name}: field {name!r} must be a non-empty string, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidCommand(f"{cls_name}: field {name!r} must be a whole number, got {value!r}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise InvalidCommand(f"{cls_name}: field {name!r} must be true or false, got {value!r}")
        return value
    if origin is tuple:  # dice
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6 for v in value)
        ):
            raise InvalidCommand(f"{cls_name}: {name} must be two dice values 1-6, got {value!r}")
        return (int(value[0]), int(value[1]))
    if origin is dict:
        if not isinstance(value, dict):
            raise InvalidCommand(f"{cls_name}: field {name!r} must be an object, got {value!r}")
        return dict(value)
    raise InvalidCommand(f"{cls_name}: unsupported field {name!r}")


def parse_command(data: Mapping[str, Any] | Command) -> Command:
    """Validate a JSON command object; a malformed one raises `InvalidCommand` naming the problem."""
    if isinstance(data, Command):
        return data
    if not isinstance(data, Mapping):
        raise InvalidCommand(f"a command must be a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if kind not in COMMAND_TYPES:
        known = ", ".join(sorted(COMMAND_TYPES))
        raise InvalidCommand(f"unknown command type {kind!r} (known: {known})")
    cls = COMMAND_TYPES[kind]
    hints = typing.get_type_hints(cls)
    names = {f.name for f in fields(cls)}
    extra = set(data) - names - {"type"}
    if extra:
        raise InvalidCommand(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in data:
            kwargs[f.name] = _check(kind, f.name, hints[f.name], data[f.name])
        elif f.default is MISSING and f.default_factory is MISSING:
            raise InvalidCommand(f"{kind}: missing field {f.name!r}")
    return cls(**kwargs)
