"""A simple table bot: plays a legal game through `apply` (demo, tests, benchmarks).

It buys when it keeps a reserve, bids up to a share of the price, mortgages to pay debts and declares
bankruptcy when it must, so whole games reach an end. Dice come from the caller's seeded generator.
"""

from __future__ import annotations

import random

from engine import commands as cmd
from engine import events as ev
from engine.board import DEEDS
from engine.buildings import bidders, check_build, check_place, min_bid
from engine.errors import IllegalCommand, InvalidCommand
from engine.finance import liquidation_value
from engine.game import run, start
from engine.selling import check_sell, group_sale_layout
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
from engine.tx import group_of

RESERVE = 150


def _dice(rng: random.Random) -> tuple[int, int]:
    return (rng.randint(1, 6), rng.randint(1, 6))


def _raise_cash(state: GameState, player: str) -> cmd.Command | None:
    """Mortgage a deed whose group has no buildings; failing that, sell a building (M.BUILD.7-8)."""
    for d in state.owned_by(player):
        if not state.deeds[d].mortgaged and not any(
            state.deeds[g].houses or state.deeds[g].hotel for g in group_of(d)
        ):
            return cmd.Mortgage(player=player, deed=d)
    for d in state.owned_by(player):
        if state.deeds[d].houses or state.deeds[d].hotel:
            try:
                check_sell(state, player, d, 1)
            except IllegalCommand:
                continue
            return cmd.SellBuilding(player=player, deed=d, count=1)
    for d in state.owned_by(player):
        layout = group_sale_layout(state, player, d) if state.deeds[d].hotel else None
        if layout is not None:
            return cmd.SellBuilding(player=player, deed=d, count=1, layout=layout)
    return None


def _build(state: GameState, player: str) -> cmd.Command | None:
    """Between turns, a rich player builds one house on a whole group (M.BUILD.1-2)."""
    if state.head is not None or state.ending is not None or state.player(player).cash < 600:
        return None
    for d in state.owned_by(player):
        if DEEDS[d].kind != "street":
            continue
        try:
            check_build(state, player, d, 1, False)
        except IllegalCommand:
            continue
        return cmd.Build(player=player, deed=d, count=1)
    return None


def _building_auction(state: GameState, a: BuildingAuction, rng: random.Random) -> cmd.Command:
    if a.placing:
        name = a.high_bidder or ""
        places = []
        for d in state.owned_by(name):
            try:
                check_place(state, name, d)
            except (IllegalCommand, InvalidCommand):
                continue
            places.append(d)
        covered = [d for d in places if DEEDS[d].house_cost <= a.high_bid]
        if covered or places:
            return cmd.PlaceBuilding(player=name, deed=(covered or places)[0])
    for name in bidders(state, a):
        if name in a.out or (name == a.high_bidder and not a.held):
            continue
        amount = max(a.high_bid + state.options.auction_step, min_bid(state, name, a.unit))
        if state.player(name).cash - amount >= RESERVE and rng.random() < 0.5:
            return cmd.Bid(player=name, amount=amount)
        return cmd.PassBid(player=name)
    raise AssertionError(f"building auction with nobody to act: {a} {bidders(state, a)}")


def choose(state: GameState, rng: random.Random) -> cmd.Command:
    head = state.head
    match head:
        case StartOrder():
            done = {n for n, _ in head.rolls}
            return cmd.Roll(dice=_dice(rng), player=next(n for n in head.rolling if n not in done))
        case UtilityRoll():
            return cmd.Roll(dice=_dice(rng))
        case TieBreak():
            done = {n for n, _ in head.rolls}
            return cmd.Roll(dice=_dice(rng), player=next(n for n in head.rolling if n not in done))
        case BuildRound():
            waiting = [p.name for p in state.active_players
                       if p.name not in head.passed and p.name != head.last and p.name not in head.excluded]
            if not waiting:
                waiting = [p.name for p in state.active_players if p.name not in head.passed]
            return cmd.PassBuild(player=waiting[0])
        case BuildingAuction():
            return _building_auction(state, head, rng)
        case CardDraw():
            return cmd.DrawCard()
        case BuyDecision():
            if state.player(head.player).cash - DEEDS[head.deed].price >= RESERVE:
                return cmd.Buy()
            return cmd.Decline()
        case Auction():
            price = DEEDS[head.deed].price
            bidders = [p.name for p in state.active_players if p.name not in head.out + head.excluded]
            step = state.options.auction_step
            amount = max(state.options.auction_min_bid, head.high_bid + step)
            for name in rng.sample(bidders, len(bidders)):
                if name == head.high_bidder:
                    continue
                limit = price * rng.uniform(0.3, 0.9)
                if amount <= limit and state.player(name).cash - amount >= RESERVE:
                    return cmd.Bid(player=name, amount=amount)
                return cmd.PassBid(player=name)
            raise AssertionError("auction with no bidder left open")
        case TaxChoice():
            return cmd.ChooseTax(option=rng.choice(("flat", "percent")))
        case JailFine():
            p = state.player(head.player)
            if p.jail_cards:
                return cmd.UseJailCard()
            if p.cash >= state.options.jail_fine:
                return cmd.PayJailFine()
            if head.offers:  # a rescue on offer can't be refused by choosing bankruptcy (M.BK.1)
                return cmd.AcceptRescue(rescuer=head.offers[0][0])
            return _raise_cash(state, p.name) or cmd.DeclareBankruptcy()
        case Debt():
            if state.player(head.debtor).cash >= head.amount:
                return cmd.PayDebt()
            if head.offers:
                return cmd.AcceptRescue(rescuer=head.offers[0][0])
            if liquidation_value(state, head.debtor) < head.amount:
                return cmd.DeclareBankruptcy()
            move = _raise_cash(state, head.debtor)
            assert move is not None, "liquidation value says cash can be raised"
            return move
    me = state.current
    if state.turn.phase == "post_roll":
        build = _build(state, me.name)
        return build or cmd.EndTurn()
    if me.in_jail and not state.turn.rolled and me.cash > 500:
        return cmd.PayJailFine()
    return cmd.Roll(dice=_dice(rng))


def demo_game(
    players: list[str], seed: int, turns: int, rng: random.Random, ruleset: str = "jma-2006"
) -> tuple[GameState, list[ev.Event]]:
    state = start(players, ruleset=ruleset, seed=seed)
    log: list[ev.Event] = []
    while state.turn.phase != "game_over" and state.turn.number <= turns:
        events, state = run(state, choose(state, rng))
        log.extend(events)
    return state, log
