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
        names = {v: k for k, v in getattr(self, "aliases", {}).items()}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or (f.default is not MISSING and value == f.default and f.name != "player"):
                continue
            out[names.get(f.name, f.name)] = list(value) if isinstance(value, tuple) else value
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


@dataclass(frozen=True)
class Build(Command):
    """Build `count` houses on `deed` (M.BUILD.1-5). Completes at once when no follower could run the bank
    short; otherwise it is a declaration that opens (or, as a follower, joins) a build round."""

    type: ClassVar[str] = "build"
    deed: str
    count: int = 1
    player: str | None = None


@dataclass(frozen=True)
class BuildHotel(Command):
    """Build a hotel on `deed` once every deed of its group has 4 houses (M.BUILD.3); like `build`."""

    type: ClassVar[str] = "build_hotel"
    deed: str
    player: str | None = None


@dataclass(frozen=True)
class SellBuilding(Command):
    """Sell `count` houses from `deed` at half cost, evenly (M.BUILD.7). On a hotel deed: sell the hotel;
    `layout` ({deed: houses} for the whole group) says which houses stay, by default the most M.BUILD.8
    allows with the fewest on the hotel's deed."""

    type: ClassVar[str] = "sell_building"
    deed: str
    count: int = 1
    player: str | None = None
    layout: dict[str, Any] | None = None


@dataclass(frozen=True)
class PassBuild(Command):
    """M.BUILD.5: the player will not follow the open building declarations."""

    type: ClassVar[str] = "pass_build"
    player: str


@dataclass(frozen=True)
class WithdrawBuild(Command):
    """M.BUILD.5 (004): reduce (by `count`) or withdraw (no count) a declaration on `deed` (all of the
    player's declarations when no deed is named); only while demand exceeds the stock, never by the last
    declarer."""

    type: ClassVar[str] = "withdraw_build"
    player: str
    deed: str | None = None
    count: int | None = None


@dataclass(frozen=True)
class PlaceBuilding(Command):
    """M.BUILD.6: the winner of a shortage auction picks the deed for the unit won."""

    type: ClassVar[str] = "place_building"
    deed: str
    player: str | None = None


@dataclass(frozen=True)
class Trade(Command):
    """A one-to-one trade (M.TRADE.1-6): `from` gives `give` and gets `get`, each {cash, deeds,
    jail_cards}, handed over at once. `lift`: mortgaged deeds received whose mortgage the receiver lifts
    on the spot (M.MORT.4). JSON key `from` (a Python keyword) is the field `giver`."""

    type: ClassVar[str] = "trade"
    aliases: ClassVar[dict[str, str]] = {"from": "giver"}
    giver: str
    to: str
    give: dict[str, Any] = field(default_factory=dict)
    get: dict[str, Any] = field(default_factory=dict)
    lift: tuple[str, ...] = ()


@dataclass(frozen=True)
class RescueOffer(Command):
    """M.BK.1: a player other than the creditor offers a provisionally bankrupt debtor (`to`) a deal:
    `from` gives `give`, gets `get`. It must save the debtor (alone or with deals already accepted)."""

    type: ClassVar[str] = "rescue_offer"
    aliases: ClassVar[dict[str, str]] = {"from": "giver"}
    giver: str
    to: str
    give: dict[str, Any] = field(default_factory=dict)
    get: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AcceptRescue(Command):
    """M.BK.1: the debtor accepts the open offer of `rescuer` (on trial until the rescue is certain)."""

    type: ClassVar[str] = "accept_rescue"
    rescuer: str
    player: str | None = None


@dataclass(frozen=True)
class WithdrawRescue(Command):
    """M.BK.1: a rescuer takes back an offer not yet accepted."""

    type: ClassVar[str] = "withdraw_rescue"
    player: str


@dataclass(frozen=True)
class AssumeJailFee(Command):
    """M.BK.6: the owner of the square a jailed debtor would move to takes over the unpayable jail fee,
    making it a bankruptcy to them at that square."""

    type: ClassVar[str] = "assume_jail_fee"
    player: str


@dataclass(frozen=True)
class EndSignal(Command):
    """M.END.2: the time game's end signal from the referee."""

    type: ClassVar[str] = "end_signal"


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.type: cls
    for cls in (
        Roll, VoidThrow, Buy, Decline, Bid, PassBid, PayJailFine, UseJailCard, DrawCard, ChooseTax,
        Mortgage, Unmortgage, PayDebt, DeclareBankruptcy, EndTurn, Undo, RefereeSet,
        Build, BuildHotel, SellBuilding, PassBuild, WithdrawBuild, PlaceBuilding, Trade, RescueOffer,
        AcceptRescue, WithdrawRescue, AssumeJailFee, EndSignal,
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
    if origin is tuple and typing.get_args(hint)[-1] is Ellipsis:  # a list of names
        if not isinstance(value, list | tuple) or any(not isinstance(v, str) or not v for v in value):
            raise InvalidCommand(f"{cls_name}: field {name!r} must be a list of names, got {value!r}")
        return tuple(value)
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
    aliases: dict[str, str] = getattr(cls, "aliases", {})
    data = {aliases.get(k, k): v for k, v in data.items()}
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
