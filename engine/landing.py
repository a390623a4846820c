"""What happens on the square a player lands on: deeds (buy or rent), taxes, cards, Go To Jail."""

from __future__ import annotations

from collections.abc import Callable

from engine import commands as cmd
from engine import events as ev
from engine.board import DEEDS, GROUPS, SQUARES
from engine.errors import IllegalCommand
from engine.state import Auction, BuyDecision, CardDraw, GameState, TaxChoice, UtilityRoll
from engine.tx import Tx, require_player

INCOME_TAX_INDEX = 4


def count_owned(state: GameState, owner: str, group: str) -> int:
    """Deeds of a group held by `owner`, mortgaged ones included (M.RENT.2)."""
    return sum(1 for d in GROUPS[group] if state.deeds[d].owner == owner)


def rent_due(state: GameState, deed_id: str, dice_total: int, card_effect: str | None = None) -> int:
    """Rent for landing on `deed_id` (M.RENT.1-5); 0 when unowned or mortgaged."""
    deed = DEEDS[deed_id]
    ds = state.deeds[deed_id]
    if ds.owner is None or ds.mortgaged:
        return 0  # M.RENT.2: a mortgaged deed collects no rent
    if deed.kind == "street":
        if ds.hotel:
            return deed.rent[5]  # M.RENT.5
        if ds.houses:
            return deed.rent[ds.houses]
        whole_group = count_owned(state, ds.owner, deed.group) == len(GROUPS[deed.group])
        return deed.rent[0] * (2 if whole_group else 1)  # M.RENT.1
    n = count_owned(state, ds.owner, deed.group)
    if deed.kind == "railroad":
        rent = deed.rent_by_count[n - 1]  # M.RENT.3
        return rent * 2 if card_effect == "pay_2x_rent" else rent  # M.RENT.4: the card's own multiplier
    multiplier = 10 if card_effect == "roll_dice_pay_10x" else deed.multiplier_by_count[n - 1]
    return multiplier * dice_total


def total_assets(state: GameState, name: str) -> int:
    """Cash + deeds (mortgaged at mortgage value) + buildings at cost: the base of the 10% income tax."""
    p = state.player(name)
    total = p.cash
    for d in state.owned_by(name):
        deed, ds = DEEDS[d], state.deeds[d]
        total += deed.mortgage if ds.mortgaged else deed.price
        total += deed.house_cost * (ds.houses + 5 * int(ds.hotel))
    return total


# ---- landing ----


def land(tx: Tx, player: str, card_effect: str | None = None) -> None:
    sq = SQUARES[tx.state.player(player).position]
    _LANDING.get(sq.type, _nothing)(tx, player, card_effect)


def _nothing(tx: Tx, player: str, card_effect: str | None) -> None:
    """GO, Just Visiting (M.JAIL.2), Free Parking (M.PARK.1)."""


def _deed(tx: Tx, player: str, card_effect: str | None) -> None:
    st = tx.state
    deed_id = SQUARES[st.player(player).position].deed
    assert deed_id is not None
    ds = st.deeds[deed_id]
    if ds.owner is None:
        tx.push_front(BuyDecision(player=player, deed=deed_id))  # M.BUY.1
        return
    if ds.owner == player or ds.mortgaged:
        return
    deed = DEEDS[deed_id]
    if deed.kind == "utility" and card_effect is not None and st.options.utility_card_reroll:
        # M.RENT.4 (000): reached by a card, the rent is thrown anew.
        n = count_owned(st, ds.owner, deed.group)
        mult = 10 if card_effect == "roll_dice_pay_10x" else deed.multiplier_by_count[n - 1]
        tx.push_front(UtilityRoll(player=player, deed=deed_id, multiplier=mult))
        return
    dice_total = sum(st.turn.last_dice) if st.turn.last_dice else 0
    rent = rent_due(st, deed_id, dice_total, card_effect)
    # M.RENT.6: the system claims the rent itself, so none is forgotten; a jailed owner collects too (M.JAIL.6).
    tx.charge(player, ((ds.owner, rent),), f"rent for {deed_id}", "M.RENT.1")


def _tax(tx: Tx, player: str, card_effect: str | None) -> None:
    st = tx.state
    opts = st.options
    if st.player(player).position == INCOME_TAX_INDEX:
        if opts.income_tax == "choice":
            tx.push_front(TaxChoice(player=player))  # M.TAX.1: chosen before computing
            return
        tx.charge(player, ((None, opts.income_tax_amount),), "income tax", "M.TAX.1")
        return
    tx.charge(player, ((None, opts.luxury_tax),), "luxury tax", "M.TAX.2")


def _card(tx: Tx, player: str, card_effect: str | None) -> None:
    deck = SQUARES[tx.state.player(player).position].type
    tx.push_front(CardDraw(player=player, deck=deck))


def _go_to_jail(tx: Tx, player: str, card_effect: str | None) -> None:
    tx.send_to_jail(player, "go_to_jail_square")  # M.JAIL.1


_LANDING: dict[str, Callable[[Tx, str, str | None], None]] = {
    "street": _deed,
    "railroad": _deed,
    "utility": _deed,
    "tax": _tax,
    "chance": _card,
    "community_chest": _card,
    "go_to_jail": _go_to_jail,
}


# ---- commands answering a landing ----


def buy(tx: Tx, c: cmd.Buy) -> None:
    head = tx.state.head
    if not isinstance(head, BuyDecision):
        raise IllegalCommand("M.BUY.1", "nothing to buy now")
    player = require_player(tx.state, c.player, head.player, "M.BUY.1", "the purchase")
    price = DEEDS[head.deed].price
    cash = tx.state.player(player).cash
    if cash < price:
        raise IllegalCommand(
            "M.BUY.1", f"{player} has ${cash}, {head.deed} costs ${price}; mortgage or sell buildings first, or decline"
        )
    tx.pop()
    tx.transfer(player, None, price, f"bought {head.deed}", "M.BUY.1")
    tx.emit(ev.DeedTransferred(deed=head.deed, owner=player, reason="bought"))


def decline(tx: Tx, c: cmd.Decline) -> None:
    head = tx.state.head
    if not isinstance(head, BuyDecision):
        raise IllegalCommand("M.BUY.1", "nothing to decline now")
    require_player(tx.state, c.player, head.player, "M.BUY.1", "the decision")
    tx.replace_head(Auction(deed=head.deed))  # M.AUC.1: the bank auctions it at once


def choose_tax(tx: Tx, c: cmd.ChooseTax) -> None:
    head = tx.state.head
    if not isinstance(head, TaxChoice):
        raise IllegalCommand("M.TAX.1", "no income tax choice is pending")
    player = require_player(tx.state, c.player, head.player, "M.TAX.1", "the tax choice")
    opts = tx.state.options
    if c.option == "flat":
        amount = opts.income_tax_amount
    elif c.option == "percent":
        amount = total_assets(tx.state, player) * opts.income_tax_percent // 100
    else:
        raise IllegalCommand("M.TAX.1", f"income tax option must be 'flat' or 'percent', not {c.option!r}")
    tx.pop()
    tx.charge(player, ((None, amount),), f"income tax ({c.option})", "M.TAX.1")


def utility_roll(tx: Tx, player: str, dice: tuple[int, int]) -> None:
    head = tx.state.head
    assert isinstance(head, UtilityRoll)
    tx.emit(ev.DiceRolled(player=player, dice=dice, purpose="utility_rent"))
    tx.pop()
    owner = tx.state.deeds[head.deed].owner
    rent = head.multiplier * (dice[0] + dice[1])
    tx.charge(player, ((owner, rent),), f"rent for {head.deed} ({head.multiplier}x dice)", "M.RENT.4")
