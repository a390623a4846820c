"""The engine's front: `new_game`, `apply(state, command) -> events`, `legal_commands(state)`."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import auction, bankruptcy, buildings, cards, ending, finance, landing, selling, trades, turns
from engine import commands as cmd
from engine import events as ev
from engine.board import BOARD_SIZE, DEEDS
from engine.errors import IllegalCommand, InvalidCommand
from engine.evolve import fold
from engine.rulesets import resolve
from engine.state import (
    Auction,
    BuildingAuction,
    BuildRound,
    BuyDecision,
    CardDraw,
    Debt,
    GameState,
    JailFine,
    StartOrder,
    TaxChoice,
    TieBreak,
    UtilityRoll,
)
from engine.tx import Tx, group_of

ALL_DICE: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))


def new_game(
    players: Sequence[str],
    ruleset: str = "jma-2006",
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> list[ev.Event]:
    """The opening events of a game: players in seat order, options, and the decks shuffled once with the
    game's own seeded generator (never the global one)."""
    names = list(players)
    if not 2 <= len(names) <= 8:
        raise InvalidCommand(f"a game needs 2 to 8 players, got {len(names)}")
    if len(set(names)) != len(names) or any(not isinstance(n, str) or not n for n in names):
        raise InvalidCommand("player names must be distinct non-empty strings")
    opts = resolve(ruleset, dict(options or {}))
    rng = random.Random(seed)
    decks = cards.shuffled_decks(opts.edition, rng)
    started = ev.GameStarted(players=tuple(names), options=opts.to_json(), decks=decks, seed=seed)
    out: list[ev.Event] = [started]
    if opts.roll_off:
        out.append(ev.PendingSet(pending=(StartOrder(groups=(tuple(names),)),)))  # M.SETUP.2
    return out


def start(players: Sequence[str], ruleset: str = "jma-2006", options: Mapping[str, Any] | None = None,
          seed: int | None = None) -> GameState:
    return fold(new_game(players, ruleset, options, seed))


# ---- apply ----


def _undo(tx: Tx, c: cmd.Undo) -> None:
    prev = tx.state.previous
    if prev is None:
        raise IllegalCommand("M.PROC.1", "nothing to undo")
    # The command being taken back is the last one accepted before this undo.
    tx.emit(ev.Undone(command={"commands_before": prev.commands}))


def _referee(tx: Tx, c: cmd.RefereeSet) -> None:
    if not c.changes:
        raise InvalidCommand("referee_set: no changes given")
    _validate_referee(tx.state, c.changes)
    tx.emit(ev.RefereeAdjusted(changes=dict(c.changes), note=c.note))


def _validate_jail_cards(state: GameState, player: str, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidCommand("referee_set: jail_cards must be a list of card ids")
    for key in value:
        if not key.endswith(":goojf") or key.partition(":")[0] not in state.decks:
            raise InvalidCommand(f"referee_set: {key!r} is not a Get Out of Jail Free card")
        holders = [p.name for p in state.players if key in p.jail_cards and p.name != player]
        if holders:
            raise IllegalCommand("M.CARD.2", f"{key} is held by {holders[0]}")


_PLAYER_FIELDS: dict[str, Callable[[Any], bool]] = {
    "cash": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "position": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < BOARD_SIZE,
    "in_jail": lambda v: isinstance(v, bool),
    "jail_turns": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 3,
}
_DEED_FIELDS: dict[str, Callable[[Any], bool]] = {
    "mortgaged": lambda v: isinstance(v, bool),
    "houses": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 4,
    "hotel": lambda v: isinstance(v, bool),
}


def _validate_referee(state: GameState, changes: Mapping[str, Any]) -> None:
    houses, hotels = state.bank_houses, state.bank_hotels
    for path, value in changes.items():
        parts = path.split(".")
        if len(parts) == 3 and parts[0] == "players":
            if not state.has_player(parts[1]):
                raise InvalidCommand(f"referee_set: unknown player {parts[1]!r}")
            if parts[2] == "jail_cards":
                _validate_jail_cards(state, parts[1], value)
                continue
            check = _PLAYER_FIELDS.get(parts[2])
            if check is None or not check(value):
                raise InvalidCommand(f"referee_set: bad value {value!r} for {path}")
        elif len(parts) == 3 and parts[0] == "deeds":
            if parts[1] not in DEEDS:
                raise InvalidCommand(f"referee_set: unknown deed {parts[1]!r}")
            d = state.deeds[parts[1]]
            if parts[2] == "owner":
                if value is not None and not state.has_player(value):
                    raise InvalidCommand(f"referee_set: unknown owner {value!r} for {path}")
                continue
            check = _DEED_FIELDS.get(parts[2])
            if check is None or not check(value):
                raise InvalidCommand(f"referee_set: bad value {value!r} for {path}")
            if parts[2] in ("houses", "hotel") and DEEDS[parts[1]].kind != "street":
                raise InvalidCommand(f"referee_set: {parts[1]} can't carry buildings")
            if parts[2] == "houses":
                houses -= int(value) - d.houses
            if parts[2] == "hotel":
                hotels -= int(value) - int(d.hotel)
        elif path == "turn.player":
            if not state.has_player(value):
                raise InvalidCommand(f"referee_set: unknown player {value!r}")
        else:
            raise InvalidCommand(f"referee_set: unknown path {path!r}")
    if houses < 0 or hotels < 0:
        raise IllegalCommand("M.BUILD.4", "the bank does not have that many houses or hotels")


def _roll(tx: Tx, c: cmd.Roll) -> None:
    if isinstance(tx.state.head, TieBreak):
        ending.tie_roll(tx, c)  # M.END.4
    else:
        turns.roll(tx, c)


def _bid(tx: Tx, c: cmd.Bid) -> None:
    if isinstance(tx.state.head, BuildingAuction):
        buildings.bid(tx, c)  # M.BUILD.6
    else:
        auction.bid(tx, c)


def _pass_bid(tx: Tx, c: cmd.PassBid) -> None:
    if isinstance(tx.state.head, BuildingAuction):
        buildings.pass_bid(tx, c)
    else:
        auction.pass_bid(tx, c)


_HANDLERS: dict[type[cmd.Command], Callable[[Tx, Any], None]] = {
    cmd.Roll: _roll,
    cmd.VoidThrow: turns.void_throw,
    cmd.EndTurn: turns.end_turn,
    cmd.PayJailFine: turns.pay_jail_fine,
    cmd.UseJailCard: turns.use_jail_card,
    cmd.Buy: landing.buy,
    cmd.Decline: landing.decline,
    cmd.ChooseTax: landing.choose_tax,
    cmd.DrawCard: cards.draw,
    cmd.Bid: _bid,
    cmd.PassBid: _pass_bid,
    cmd.Mortgage: finance.mortgage,
    cmd.Unmortgage: finance.unmortgage,
    cmd.PayDebt: finance.pay_debt,
    cmd.DeclareBankruptcy: bankruptcy.declare_bankruptcy,
    cmd.Build: buildings.build,
    cmd.BuildHotel: buildings.build_hotel,
    cmd.SellBuilding: selling.sell_building,
    cmd.PassBuild: buildings.pass_build,
    cmd.WithdrawBuild: buildings.withdraw_build,
    cmd.PlaceBuilding: buildings.place_building,
    cmd.Trade: trades.trade,
    cmd.RescueOffer: bankruptcy.rescue_offer,
    cmd.AcceptRescue: bankruptcy.accept_rescue,
    cmd.WithdrawRescue: bankruptcy.withdraw_rescue,
    cmd.AssumeJailFee: bankruptcy.assume_jail_fee,
    cmd.EndSignal: ending.end_signal,
    cmd.Undo: _undo,
    cmd.RefereeSet: _referee,
}

# Commands that may be given while a card waits to be drawn without drawing it first.
_NO_AUTO_DRAW = (cmd.DrawCard, cmd.Undo, cmd.VoidThrow, cmd.RefereeSet)


def apply(state: GameState, command: cmd.Command | Mapping[str, Any]) -> list[ev.Event]:
    """The events a command leads to. Raises `IllegalCommand` (with `.rule`) or `InvalidCommand`; the
    given state is never changed (it is immutable), so a refused command leaves nothing half-applied."""
    return run(state, command)[0]


def run(state: GameState, command: cmd.Command | Mapping[str, Any]) -> tuple[list[ev.Event], GameState]:
    """`apply`, also returning the state the events lead to (equal to folding them onto `state`)."""
    c = cmd.parse_command(command)
    tx = Tx(state)
    tx.emit(ev.CommandAccepted(command=c.to_json()))
    head = tx.state.head
    if isinstance(head, CardDraw) and not isinstance(c, _NO_AUTO_DRAW):
        # A card waiting to be drawn when play moves on is drawn from the seeded deck (DESIGN: "when a
        # scenario does not say which card is drawn, the seeded deck decides").
        cards.draw(tx, cmd.DrawCard())
        tx.settle()
    _HANDLERS[type(c)](tx, c)
    buildings.tidy(tx)
    tx.settle()
    ending.check_end(tx)  # M.END.2: the final turn played out
    return tx.events, tx.state


def step(state: GameState, command: cmd.Command | Mapping[str, Any]) -> GameState:
    """The state after a command."""
    return run(state, command)[1]


# ---- legal commands ----


def legal_commands(state: GameState) -> list[cmd.Command]:
    """Every concrete command the rules allow now (rolls listed once per ordered dice outcome; bids at
    the next step only; builds and sales one unit at a time). Each one is accepted by `apply`. Trades,
    rescue offers and the referee's commands (end_signal, referee_set, undo) are open-ended and not listed."""
    if state.turn.phase == "game_over":
        return []
    head = state.head
    out: list[cmd.Command] = []
    match head:
        case StartOrder():
            done = {n for n, _ in head.rolls}
            who = next(n for n in head.rolling if n not in done)
            return [cmd.Roll(dice=d, player=who) for d in ALL_DICE]
        case UtilityRoll():
            return [cmd.Roll(dice=d) for d in ALL_DICE]
        case CardDraw():
            return [cmd.DrawCard()]
        case BuyDecision():
            if state.player(head.player).cash >= DEEDS[head.deed].price:
                out.append(cmd.Buy())
            out.append(cmd.Decline())
        case Auction():
            opts = state.options
            amount = max(opts.auction_min_bid, head.high_bid + opts.auction_step)
            for name in auction.still_bidding(state, head):
                out.append(cmd.Bid(player=name, amount=amount))
                if name != head.high_bidder:
                    out.append(cmd.PassBid(player=name))
        case TieBreak():
            done = {n for n, _ in head.rolls}
            who = next(n for n in head.rolling if n not in done)
            return [cmd.Roll(dice=d, player=who) for d in ALL_DICE]
        case BuildRound():
            out.extend(_build_round_commands(state, head))
        case BuildingAuction():
            out.extend(_building_auction_commands(state, head))
        case TaxChoice():
            return [cmd.ChooseTax(option="flat"), cmd.ChooseTax(option="percent")]
        case JailFine():
            p = state.player(head.player)
            if p.cash >= state.options.jail_fine:
                out.append(cmd.PayJailFine())
            if p.jail_cards:
                out.append(cmd.UseJailCard())
            if _ok(bankruptcy.check_declare, state, None):
                out.append(cmd.DeclareBankruptcy())
        case Debt():
            if state.player(head.debtor).cash >= head.amount:
                out.append(cmd.PayDebt())
            elif _ok(bankruptcy.check_declare, state, None):
                out.append(cmd.DeclareBankruptcy())
        case None:
            p = state.current
            if state.turn.phase == "post_roll":
                out.append(cmd.EndTurn())
            out.extend(cmd.Roll(dice=d) for d in ALL_DICE)
            if p.in_jail and state.turn.phase == "pre_roll" and not state.turn.rolled:
                if p.cash >= state.options.jail_fine:
                    out.append(cmd.PayJailFine())
                if p.jail_cards:
                    out.append(cmd.UseJailCard())
    if isinstance(head, Debt | JailFine):
        for offer in head.offers:  # M.BK.1: open rescue offers may be accepted or withdrawn
            if _ok(bankruptcy.check_accept, state, offer[0]):
                out.append(cmd.AcceptRescue(rescuer=offer[0]))
            out.append(cmd.WithdrawRescue(player=offer[0]))
    out.extend(_money_commands(state))
    out.extend(_building_commands(state))
    return out


def _ok(check: Callable[..., object], *args: Any) -> bool:
    try:
        check(*args)
    except IllegalCommand:
        return False
    return True


def _building_commands(state: GameState) -> list[cmd.Command]:
    """Builds between turns (M.BUILD.1) and sales whenever selling is allowed, one unit at a time."""
    out: list[cmd.Command] = []
    building = state.ending is None and (state.head is None and finance.between_turns(state))
    for p in state.active_players:
        for d in state.owned_by(p.name):
            if DEEDS[d].kind != "street":
                continue
            ds = state.deeds[d]
            if building:
                if _ok(buildings.check_build, state, p.name, d, 1, False):
                    out.append(cmd.Build(player=p.name, deed=d, count=1))
                if _ok(buildings.check_build, state, p.name, d, 1, True):
                    out.append(cmd.BuildHotel(player=p.name, deed=d))
            if (ds.houses or ds.hotel) and _ok(selling.check_sell, state, p.name, d, 1):
                out.append(cmd.SellBuilding(player=p.name, deed=d, count=1))
            elif ds.hotel:
                layout = selling.group_sale_layout(state, p.name, d)
                if layout is not None:
                    out.append(cmd.SellBuilding(player=p.name, deed=d, count=1, layout=layout))
    return out


def _build_round_commands(state: GameState, rnd: BuildRound) -> list[cmd.Command]:
    out: list[cmd.Command] = []
    for p in state.active_players:
        if p.name not in rnd.passed:
            out.append(cmd.PassBuild(player=p.name))
        if p.name in rnd.excluded:
            continue
        for d in state.owned_by(p.name):
            if DEEDS[d].kind != "street":
                continue
            if _ok(buildings.check_build, state, p.name, d, 1, False, rnd.declarations):
                out.append(cmd.Build(player=p.name, deed=d, count=1))
            if _ok(buildings.check_build, state, p.name, d, 1, True, rnd.declarations):
                out.append(cmd.BuildHotel(player=p.name, deed=d))
        withdraw = cmd.WithdrawBuild(player=p.name)
        if _ok(buildings.check_withdraw, state, withdraw):
            out.append(withdraw)
    return out


def _building_auction_commands(state: GameState, a: BuildingAuction) -> list[cmd.Command]:
    out: list[cmd.Command] = []
    if a.placing:
        name = a.high_bidder or ""
        places = [
            d for d in state.owned_by(name) if DEEDS[d].kind == "street" and _ok(buildings.check_place, state, name, d)
        ]
        # Deeds the bid covers; failing those, any (the win is then held and bidding goes on, M.BUILD.6).
        covered = [d for d in places if DEEDS[d].house_cost <= a.high_bid]
        return [cmd.PlaceBuilding(player=name, deed=d) for d in covered or places]
    for name in buildings.bidders(state, a):
        if name in a.out:
            continue
        amount = max(a.high_bid + state.options.auction_step, buildings.min_bid(state, name, a.unit))
        if _ok(buildings.check_bid, state, name, amount):
            out.append(cmd.Bid(player=name, amount=amount))
        if name != a.high_bidder or a.held:
            out.append(cmd.PassBid(player=name))
    return out


def _money_commands(state: GameState) -> list[cmd.Command]:
    out: list[cmd.Command] = []
    for p in state.active_players:
        can_mortgage = finance.between_turns(state) or finance.raising_cash(state, p.name)
        for d in state.owned_by(p.name):
            ds = state.deeds[d]
            if ds.mortgaged:
                lift = finance.between_turns(state) or finance.lifting_fee_due(state, p.name, d)
                if lift and p.cash >= finance.unmortgage_cost(state, d):
                    out.append(cmd.Unmortgage(player=p.name, deed=d))
            elif can_mortgage and not any(
                state.deeds[g].houses or state.deeds[g].hotel for g in group_of(d)
            ):
                out.append(cmd.Mortgage(player=p.name, deed=d))
    return out
