"""Selling houses and hotels back to the bank (M.BUILD.7-8): at half their cost, evenly, and a hotel broken
back into houses where the bank has them."""

from __future__ import annotations

import itertools

from engine import commands as cmd
from engine import events as ev
from engine.board import DEEDS, GROUPS
from engine.buildings import HOTEL, builder_or_owner, free_houses, level, require_street, uneven_message
from engine.errors import IllegalCommand, InvalidCommand
from engine.finance import _pay_debt_if_able, between_turns, raising_cash
from engine.state import Debt, GameState
from engine.tx import Tx


def can_sell_now(state: GameState, player: str) -> bool:
    return between_turns(state) or raising_cash(state, player)


def _debt_shortfall(state: GameState, player: str) -> int:
    """Cash still missing for a debt the player can't pay in cash (the M.BUILD.8 exception), else 0."""
    head = state.head
    if isinstance(head, Debt) and head.debtor == player:
        return max(0, head.amount - state.player(player).cash)
    return 0


def check_sell(state: GameState, player: str, deed: str, count: int,
               layout: dict[str, int] | None = None) -> dict[str, int]:
    """The group's levels after the sale (M.BUILD.2, M.BUILD.7-8); refuses what the rules forbid."""
    require_street(deed)
    if state.deeds[deed].owner != player:
        raise IllegalCommand("M.BUILD.7", f"{player} does not own {deed}")
    if not can_sell_now(state, player):
        if any(isinstance(p, Debt) and p.debtor == player for p in state.pending[1:]):
            # Several players forced to sell by one card are processed in turn order from the drawer.
            raise IllegalCommand("M.BUILD.9", f"{player}'s payment comes after the players before in turn order")
        raise IllegalCommand("M.MORT.3", "buildings are sold between turns or to raise cash that is due")
    group = DEEDS[deed].group
    before = {d: level(state, d) for d in GROUPS[group]}
    if before[deed] == HOTEL:
        return _hotel_layout(state, player, deed, layout)
    if layout is not None:
        raise InvalidCommand("sell_building: a layout is only for selling a hotel")
    if count < 1 or count > before[deed]:
        raise IllegalCommand("M.BUILD.7", f"{deed} has {before[deed]} houses; can't sell {count}")
    after = dict(before)
    after[deed] -= count
    if max(after.values()) - min(after.values()) > 1:
        raise IllegalCommand("M.BUILD.2", "uneven sale: " + uneven_message(group, after))
    return after


def _hotel_layout(state: GameState, player: str, deed: str, layout: dict[str, int] | None,
                  keep_hotels: bool = True) -> dict[str, int]:
    group = DEEDS[deed].group
    deeds = GROUPS[group]
    before = {d: level(state, d) for d in deeds}
    if layout is not None:
        if set(layout) - set(deeds) or any(not isinstance(v, int) or isinstance(v, bool) for v in layout.values()):
            raise InvalidCommand(f"sell_building: layout must give whole numbers for deeds of {group}")
        after = {d: int(layout.get(d, before[d])) for d in deeds}
        _check_layout(state, player, deed, before, after)
        return after
    combos = [
        dict(zip(deeds, combo, strict=True))
        # By default other hotels stay: selling several needs an explicit layout.
        for combo in itertools.product(*(
            range(min(before[d], 4) + 1) if d == deed else (
                (HOTEL,) if before[d] == HOTEL and keep_hotels else range(before[d] + 1))
            for d in deeds
        ))
        if max(combo) - min(combo) <= 1
    ]
    # Keep the most; the fewest on the deed losing its hotel (the worked example's 4,4,H -> 3,3,2).
    combos.sort(key=lambda after: (sum(after.values()), -after[deed]), reverse=True)
    for after in combos:
        try:
            _check_layout(state, player, deed, before, after)
        except IllegalCommand:
            continue
        return after
    raise IllegalCommand(
        "M.BUILD.8", f"the hotel on {deed} can't be sold evenly with the houses available: give a layout for {group}"
    )


def _check_layout(state: GameState, player: str, deed: str, before: dict[str, int], after: dict[str, int]) -> None:
    group = DEEDS[deed].group
    if after[deed] >= HOTEL:
        raise IllegalCommand("M.BUILD.8", f"the layout keeps the hotel on {deed}")
    if any(not 0 <= after[d] <= before[d] for d in after):
        raise IllegalCommand("M.BUILD.8", "selling a hotel can't add buildings to other deeds")
    if max(after.values()) - min(after.values()) > 1:
        raise IllegalCommand("M.BUILD.2", "uneven sale: " + uneven_message(group, after))
    houses_before = sum(v for v in before.values() if v < HOTEL)
    houses_after = sum(v for v in after.values() if v < HOTEL)
    extra = houses_after - houses_before
    free = free_houses(state)
    if extra > free:
        held = state.bank_houses - free
        auctioned = f" ({held} under auction)" if held else ""
        raise IllegalCommand("M.BUILD.4", f"the bank has {free} houses free{auctioned}; that layout needs {extra}")
    if extra <= 0 or state.options.hotel_breakup == "classic":
        return
    shortfall = _debt_shortfall(state, player)
    if not shortfall:
        raise IllegalCommand(
            "M.BUILD.8", f"selling a hotel may leave at most the {houses_before} houses already in {group}"
        )
    half = DEEDS[deed].house_cost // 2
    proceeds = (sum(before.values()) - sum(after.values())) * half
    if proceeds - half >= shortfall:
        raise IllegalCommand(
            "M.BUILD.8",
            f"houses from the bank only to the minimum needed: ${proceeds - half} already covers ${shortfall}",
        )


def group_sale_layout(state: GameState, player: str, deed: str) -> dict[str, int] | None:
    """A layout selling other hotels of the group too, for when selling one alone can't be even (H,H,H)."""
    try:
        check_sell(state, player, deed, 1)
        return None
    except IllegalCommand:
        pass
    if level(state, deed) != HOTEL or not can_sell_now(state, player) or state.deeds[deed].owner != player:
        return None
    try:
        return _hotel_layout(state, player, deed, None, keep_hotels=False)
    except IllegalCommand:
        return None


def sell_building(tx: Tx, c: cmd.SellBuilding) -> None:
    st = tx.state
    player = builder_or_owner(st, c.player, c.deed)
    layout = None if c.layout is None else dict(c.layout)
    after = check_sell(st, player, c.deed, c.count, layout)
    before = {d: level(st, d) for d in after}
    half = DEEDS[c.deed].house_cost // 2
    proceeds = (sum(before.values()) - sum(after.values())) * half
    # Houses coming back to the bank first, then those taken from it, so the stock never dips below 0.
    order = sorted(after, key=lambda d: (after[d] - (before[d] if before[d] < HOTEL else 0), d))
    for d in order:
        if after[d] != before[d]:
            tx.emit(ev.BuildingsSet(deed=d, houses=after[d], hotel=False))
    tx.transfer(None, player, proceeds, f"buildings on {DEEDS[c.deed].group} sold to the bank", "M.BUILD.7")
    _pay_debt_if_able(tx)
