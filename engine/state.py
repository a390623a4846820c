"""The game state: plain immutable values, and their JSON form (the contract in DESIGN.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from engine.board import DEED_ORDER, DEEDS, SQUARES
from engine.rulesets import Options

BANK = None  # the bank as payer/payee/creditor

_T = TypeVar("_T")


def fast_replace(obj: _T, **changes: Any) -> _T:
    """`dataclasses.replace` without re-running `__init__`: folding long logs replaces states millions
    of times, and every value here is already valid."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class Player:
    name: str
    cash: int
    position: int = 0
    in_jail: bool = False
    jail_turns: int = 0  # failed rolls for doubles so far in this stay (M.JAIL.3)
    jail_cards: tuple[str, ...] = ()  # full card ids, e.g. "chance:goojf"
    bankrupt: bool = False
    out_order: int = 0  # 1 for the first player to go bankrupt, 2 for the next... (M.END.4)
    out_batch: int = 0  # M.BK.5: bankruptcies from one "collect from every player" card share a batch
    out_cash: int = 0  # M.BK.5: cash held when that card was drawn (more cash ranks higher)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cash": self.cash,
            "position": self.position,
            "square": SQUARES[self.position].name,
            "in_jail": self.in_jail,
            "jail_turns": self.jail_turns,
            "jail_cards": list(self.jail_cards),
            "bankrupt": self.bankrupt,
        }


@dataclass(frozen=True)
class DeedState:
    owner: str | None = None
    mortgaged: bool = False
    houses: int = 0  # 0-4; 0 when a hotel stands
    hotel: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "mortgaged": self.mortgaged, "houses": self.houses, "hotel": self.hotel}


@dataclass(frozen=True)
class Turn:
    player: str
    phase: str = "pre_roll"  # start_order | pre_roll | post_roll | game_over
    doubles: int = 0  # doubles thrown in a row this turn (M.DICE.4)
    again: bool = False  # the last move was by doubles: the same player rolls again (M.DICE.3)
    rolled: bool = False  # the player has moved by a roll this turn
    number: int = 1
    last_dice: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "phase": self.phase,
            "doubles": self.doubles,
            "again": self.again,
            "rolled": self.rolled,
            "number": self.number,
            "last_dice": list(self.last_dice) if self.last_dice else None,
        }


# ---- pending decisions: the head of GameState.pending must be resolved before play goes on ----


@dataclass(frozen=True)
class Pending:
    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class BuyDecision(Pending):
    kind: ClassVar[str] = "buy"
    player: str
    deed: str


@dataclass(frozen=True)
class Auction(Pending):
    kind: ClassVar[str] = "auction"
    deed: str
    high_bid: int = 0
    high_bidder: str | None = None
    out: tuple[str, ...] = ()  # passed for this auction
    excluded: tuple[str, ...] = ()  # M.AUC.2: winners who could not pay, left out of the re-run
    reason: str = "declined"  # declined | bankruptcy


@dataclass(frozen=True)
class CardDraw(Pending):
    kind: ClassVar[str] = "card"
    player: str
    deck: str


@dataclass(frozen=True)
class Debt(Pending):
    kind: ClassVar[str] = "debt"
    debtor: str
    payees: tuple[tuple[str | None, int], ...]  # (creditor or None for the bank, amount)
    reason: str
    rule: str
    # M.BK.1 provisional bankruptcy: rescue offers open to the debtor and deals accepted on trial (each a
    # `trades.Deal` as a plain tuple), void if the rescue fails.
    offers: tuple[tuple[Any, ...], ...] = ()
    deals: tuple[tuple[Any, ...], ...] = ()
    batch: int = 0  # M.BK.5: the seq of the "collect from every player" card that made this debt
    cash_at: int = 0  # M.BK.5: the debtor's cash when that card was drawn

    @property
    def amount(self) -> int:
        return sum(a for _, a in self.payees)

    @property
    def creditor(self) -> str | None:
        """The single creditor player, or None when the bank (or several players) is owed."""
        names = {p for p, _ in self.payees}
        if len(names) == 1:
            return next(iter(names))
        return BANK

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["amount"] = self.amount
        out["creditor"] = self.creditor
        return out


@dataclass(frozen=True)
class TaxChoice(Pending):
    kind: ClassVar[str] = "tax_choice"
    player: str


@dataclass(frozen=True)
class JailFine(Pending):
    kind: ClassVar[str] = "jail_fine"
    player: str
    dice: tuple[int, int]  # the third failed roll, moved by once the fee is paid (M.JAIL.3)
    offers: tuple[tuple[Any, ...], ...] = ()  # M.BK.6: rescue offers must cover fee and destination rent
    deals: tuple[tuple[Any, ...], ...] = ()


@dataclass(frozen=True)
class UtilityRoll(Pending):
    kind: ClassVar[str] = "utility_roll"
    player: str
    deed: str
    multiplier: int


@dataclass(frozen=True)
class StartOrder(Pending):
    kind: ClassVar[str] = "start_order"
    groups: tuple[tuple[str, ...], ...]  # ordered; a group of several players still has to roll off
    rolls: tuple[tuple[str, int], ...] = ()  # totals thrown so far by the group rolling now

    @property
    def rolling(self) -> tuple[str, ...]:
        for g in self.groups:
            if len(g) > 1:
                return g
        return ()


@dataclass(frozen=True)
class BuildRound(Pending):
    """M.BUILD.5: building declarations that could run past the bank's stock, waiting for followers.

    `declarations` are (player, deed, count, hotel) in the order declared; `passed` are players who said
    they will not follow since the last declaration; `last` declared last (may not withdraw); `excluded`
    won a shortage auction without paying and are out of this round (M.BUILD.6)."""

    kind: ClassVar[str] = "build_round"
    declarations: tuple[tuple[str, str, int, bool], ...] = ()
    passed: tuple[str, ...] = ()
    last: str = ""
    excluded: tuple[str, ...] = ()

    def describe(self) -> tuple[str, str]:
        return "M.BUILD.5", "building declarations are open (follow, withdraw or pass_build)"


@dataclass(frozen=True)
class BuildingAuction(Pending):
    """M.BUILD.6: one house (or hotel) auctioned in a shortage. `placing`: the winner now picks the deed;
    `held`: a winning bid below the picked deed's cost, held while bidding goes on."""

    kind: ClassVar[str] = "building_auction"
    unit: str  # house | hotel
    high_bid: int = 0
    high_bidder: str | None = None
    out: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    placing: bool = False
    held: bool = False

    def describe(self) -> tuple[str, str]:
        if self.placing:
            return "M.BUILD.6", f"{self.high_bidder} won a {self.unit} for ${self.high_bid} and must place it"
        return "M.BUILD.6", f"a {self.unit} is being auctioned in a shortage"


@dataclass(frozen=True)
class TieBreak(Pending):
    """M.END.4: players level on assets roll two dice; higher ranks higher, ties roll again."""

    kind: ClassVar[str] = "tie_break"
    groups: tuple[tuple[str, ...], ...]
    rolls: tuple[tuple[str, int], ...] = ()
    reason: str = "time"

    @property
    def rolling(self) -> tuple[str, ...]:
        for g in self.groups:
            if len(g) > 1:
                return g
        return ()

    def describe(self) -> tuple[str, str]:
        return "M.END.4", f"{', '.join(self.rolling)} roll two dice to settle a tie in the ranking"


PENDING_KINDS: dict[str, type[Pending]] = {
    cls.kind: cls
    for cls in (
        BuyDecision, Auction, CardDraw, Debt, TaxChoice, JailFine, UtilityRoll, StartOrder, BuildRound,
        BuildingAuction, TieBreak,
    )
}


def pending_from_json(data: Mapping[str, Any]) -> Pending:
    cls = PENDING_KINDS[data["kind"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        value = data[f.name]
        kwargs[f.name] = _tuplify(value)
    return cls(**kwargs)


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


@dataclass(frozen=True)
class GameState:
    options: Options
    players: tuple[Player, ...]
    deeds: Mapping[str, DeedState]
    decks: Mapping[str, tuple[str, ...]]  # full card ids, top of the deck first (M.CARD.1)
    turn: Turn
    bank_houses: int
    bank_hotels: int
    # Cash the bank has paid out minus cash it has taken in: the bank's money is kept apart from every
    # player's, whoever acts as banker (M.SETUP.4), and conservation is checked against it.
    bank_issued: int = 0
    pending: tuple[Pending, ...] = ()
    ranking: tuple[str, ...] = ()
    seq: int = 0  # events folded into this state
    commands: int = 0  # commands accepted
    seed: int | None = None
    # M.END.2: after the end signal, (last turn number, whether doubles in it roll again); None before.
    ending: tuple[int, bool] | None = None
    winner: str | None = None  # M.END.1/M.END.5
    # M.TRADE.4: the last trade (from, to, give, get, turn number) to refuse an on-the-spot buy-back.
    last_trade: tuple[Any, ...] | None = None
    # The state before the last accepted command, for `undo` (M.PROC.1); not part of the value.
    previous: GameState | None = field(default=None, compare=False, repr=False)

    # ---- lookups ----
    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def has_player(self, name: str) -> bool:
        return any(p.name == name for p in self.players)

    @property
    def current(self) -> Player:
        return self.player(self.turn.player)

    @property
    def active_players(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if not p.bankrupt)

    def next_player_after(self, name: str) -> str:
        """The next player in seat order who is still in the game."""
        names = [p.name for p in self.players]
        i = names.index(name)
        for k in range(1, len(names) + 1):
            cand = self.players[(i + k) % len(names)]
            if not cand.bankrupt:
                return cand.name
        return name

    def owned_by(self, name: str) -> tuple[str, ...]:
        return tuple(d for d in DEED_ORDER if self.deeds[d].owner == name)

    @property
    def head(self) -> Pending | None:
        return self.pending[0] if self.pending else None

    # ---- updates used by evolve ----
    def with_player(self, name: str, **changes: Any) -> GameState:
        players = tuple(fast_replace(p, **changes) if p.name == name else p for p in self.players)
        return fast_replace(self, players=players)

    def with_deed(self, deed: str, **changes: Any) -> GameState:
        deeds = dict(self.deeds)
        deeds[deed] = fast_replace(deeds[deed], **changes)
        return fast_replace(self, deeds=deeds)

    # ---- the JSON contract: cash, deeds and buildings are open information (M.PROC.3) ----
    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.options.ruleset,
            "options": self.options.to_json(),
            "players": [p.to_json() for p in self.players],
            "deeds": {d: self.deeds[d].to_json() for d in DEED_ORDER},
            "bank": {"houses": self.bank_houses, "hotels": self.bank_hotels, "issued": self.bank_issued},
            "turn": self.turn.to_json(),
            "pending": self.pending[0].to_json() if self.pending else None,
            "queue": [p.to_json() for p in self.pending[1:]],
            "decks": {k: list(v) for k, v in self.decks.items()},
            "ranking": list(self.ranking),
            "winner": self.winner,
            "ending": list(self.ending) if self.ending else None,
            "seq": self.seq,
        }


def initial_deeds() -> dict[str, DeedState]:
    return {d: DeedState() for d in DEEDS}
