"""Provisional bankruptcy and rescue (M.BK.1), bankruptcy to a player or the bank (M.BK.2-3), and the
Chairman, Grand Opera and third-jail-roll cases (M.BK.4-6)."""

from __future__ import annotations

from dataclasses import replace

from engine import commands as cmd
from engine import events as ev
from engine import trades
from engine.board import BOARD_SIZE, DEED_ORDER, DEEDS, SQUARES, card
from engine.errors import IllegalCommand
from engine.finance import _pay_debt_if_able, liquidation_value
from engine.landing import rent_due
from engine.state import Auction, Debt, GameState, JailFine, Turn
from engine.tx import Tx


def destination_rent(state: GameState, head: JailFine) -> tuple[str | None, int]:
    """M.BK.6: the creditor and rent at the square the third failed roll leads to (0 where unknown)."""
    p = state.player(head.player)
    square = SQUARES[(p.position + sum(head.dice)) % BOARD_SIZE]
    if square.deed is None:
        if square.type == "tax":
            opts = state.options
            return None, opts.income_tax_amount if square.index == 4 else opts.luxury_tax
        return None, 0
    owner = state.deeds[square.deed].owner
    if owner is None or owner == head.player:
        return None, 0
    return owner, rent_due(state, square.deed, sum(head.dice))


def need(state: GameState, head: Debt | JailFine) -> int:
    """Cash the debtor must be able to raise; for the jail fee, fee and destination rent together (M.BK.6)."""
    if isinstance(head, Debt):
        return head.amount
    return state.options.jail_fine + destination_rent(state, head)[1]


def _debtor(head: Debt | JailFine) -> str:
    return head.debtor if isinstance(head, Debt) else head.player


def _creditors(state: GameState, head: Debt | JailFine) -> set[str]:
    if isinstance(head, Debt):
        return {p for p, _ in head.payees if p is not None}
    owner = destination_rent(state, head)[0]
    return {owner} if owner else set()


def _head(state: GameState) -> Debt | JailFine:
    head = state.head
    if not isinstance(head, Debt | JailFine):
        raise IllegalCommand("M.BK.1", "no debt is due")
    return head


# ---- rescue (M.BK.1) ----


def check_offer(state: GameState, c: cmd.RescueOffer) -> trades.Deal:
    if state.ending is not None:
        raise IllegalCommand("M.END.2", "no debt negotiation after the end signal")
    head = _head(state)
    debtor = _debtor(head)
    if c.to != debtor:
        raise IllegalCommand("M.BK.1", f"rescue offers go to the debtor {debtor}, not {c.to}")
    if not state.options.provisional_bankruptcy:
        raise IllegalCommand("M.BK.1", f"the {state.options.ruleset} rules have no rescue offers")
    if not trades.provisional(state):
        raise IllegalCommand("M.BK.1", f"{debtor} can pay from own assets: an ordinary debt negotiation (trade)")
    deal = trades.make_deal(state, c.giver, c.to, c.give, c.get)
    if c.giver in _creditors(state, head):
        others = [trades.deal_of(o).giver for o in head.offers] + [trades.deal_of(d).giver for d in head.deals]
        if not any(g not in _creditors(state, head) for g in others):
            raise IllegalCommand("M.BK.1", "with no offer from a third party the creditor may not negotiate (004)")
    trades.check_deal(state, deal, claims=False)
    before = liquidation_value(state, debtor)
    after = before + _gain(state, deal, debtor)
    if after <= before:
        raise IllegalCommand("M.BK.1", f"the offer does not improve {debtor}'s position: no rescue")
    return deal


def _gain(state: GameState, deal: trades.Deal, who: str) -> int:
    """Change in `who`'s liquidation value from a deal: cash, and deeds at their mortgage value."""
    def worth(deeds: tuple[str, ...]) -> int:
        return sum(0 if state.deeds[d].mortgaged else DEEDS[d].mortgage for d in deeds)

    out_cash, out_deeds, _ = deal.side(who)
    in_cash, in_deeds, _ = deal.side(deal.other(who))
    return in_cash - out_cash + worth(in_deeds) - worth(out_deeds)


def rescue_offer(tx: Tx, c: cmd.RescueOffer) -> None:
    deal = check_offer(tx.state, c)
    head = _head(tx.state)
    offers = tuple(o for o in head.offers if trades.deal_of(o).giver != c.giver)
    tx.replace_head(replace(head, offers=(*offers, tuple(deal))))


def _offer_of(head: Debt | JailFine, rescuer: str) -> trades.Deal:
    for o in head.offers:
        deal = trades.deal_of(o)
        if deal.giver == rescuer:
            return deal
    raise IllegalCommand("M.BK.1", f"{rescuer} has no open rescue offer")


def check_accept(state: GameState, rescuer: str, player: str | None = None) -> trades.Deal:
    head = _head(state)
    debtor = _debtor(head)
    if player is not None and player != debtor:
        raise IllegalCommand("M.BK.1", f"only the debtor {debtor} accepts a rescue")
    deal = _offer_of(head, rescuer)
    trades.check_deal(state, deal, claims=False)  # still valid now
    return deal


def accept_rescue(tx: Tx, c: cmd.AcceptRescue) -> None:
    st = tx.state
    head = _head(st)
    debtor = _debtor(head)
    deal = check_accept(st, c.rescuer, c.player)
    offers = tuple(o for o in head.offers if trades.deal_of(o).giver != c.rescuer)
    tx.replace_head(replace(head, offers=offers, deals=(*head.deals, tuple(deal))))
    trades.execute(tx, deal, context="rescue", fees=False)
    head = _head(tx.state)
    if liquidation_value(tx.state, debtor) >= need(tx.state, head):
        # Rescue certain: the deals stand and it is an ordinary debt negotiation from here (M.BK.1).
        tx.replace_head(replace(head, offers=(), deals=()))
        for raw in head.deals:
            d = trades.deal_of(raw)
            moved = [x for x in (*d.give_deeds, *d.get_deeds) if tx.state.deeds[x].mortgaged]
            trades.pay_mortgage_fees(tx, moved, (), debt=True)  # M.MORT.4, never below $0
        _pay_debt_if_able(tx)


def withdraw_rescue(tx: Tx, c: cmd.WithdrawRescue) -> None:
    head = _head(tx.state)
    _offer_of(head, c.player)
    offers = tuple(o for o in head.offers if trades.deal_of(o).giver != c.player)
    tx.replace_head(replace(head, offers=offers))


def revert_deals(tx: Tx) -> None:
    """A rescue that failed: the deals made for it are void (M.BK.1, 004)."""
    head = _head(tx.state)
    if not head.deals:
        return
    tx.replace_head(replace(head, deals=(), offers=()))
    for raw in reversed(head.deals):
        deal = trades.deal_of(raw)
        for who in (deal.giver, deal.receiver):
            cash, deeds, cards = deal.side(who)
            back_to = who
            holder = deal.other(who)
            tx.transfer(holder, back_to, min(cash, tx.state.player(holder).cash), "rescue void", "M.BK.1")
            for d in deeds:
                tx.emit(ev.DeedTransferred(deed=d, owner=back_to, reason="rescue void"))
            for k in cards:
                tx.emit(ev.JailCardGiven(card=k, giver=holder, receiver=back_to))


# ---- bankruptcy ----


def _chairman(debt: Debt) -> bool:
    """M.BK.4: a debt from "pay each player" ends in a bank bankruptcy; nobody is paid."""
    if not debt.reason.startswith("card "):
        return False
    key = debt.reason.split()[1]
    try:
        return card("pre2008", key).op == "pay_each_player" or card("2008", key).op == "pay_each_player"
    except KeyError:
        return False


def check_declare(state: GameState, player: str | None) -> tuple[str, str | None]:
    """(debtor, creditor) of a bankruptcy the rules allow now."""
    head = state.head
    if not isinstance(head, Debt | JailFine):
        raise IllegalCommand("M.BK.1", "bankruptcy is declared only on a debt that can't be paid")
    debtor = _debtor(head)
    if player is not None and player != debtor:
        raise IllegalCommand("M.BK.1", f"the debt is {debtor}'s, not {player}'s")
    ending = state.ending is not None
    if isinstance(head, JailFine):
        if state.player(debtor).jail_cards:
            raise IllegalCommand("M.BK.6", f"{debtor} holds a Get Out of Jail Free card and must use it")
        if liquidation_value(state, debtor) >= state.options.jail_fine:
            raise IllegalCommand(
                "M.BK.6", f"{debtor}'s own assets pay the fee: pay it and settle at the destination square"
            )
        if head.offers and not ending:
            raise IllegalCommand("M.BK.1", "a rescue is on offer: the debtor can't choose bankruptcy")
        return debtor, None
    can_raise = liquidation_value(state, debtor)
    if can_raise >= head.amount:
        raise IllegalCommand(
            "M.BK.1", f"{debtor} can raise ${can_raise} by selling and mortgaging; the debt is ${head.amount}"
        )
    if head.offers and not ending:
        raise IllegalCommand("M.BK.1", "a rescue is on offer: the debtor can't choose bankruptcy")
    return debtor, (None if _chairman(head) else head.creditor)


def declare_bankruptcy(tx: Tx, c: cmd.DeclareBankruptcy) -> None:
    debtor, creditor = check_declare(tx.state, c.player)
    fail(tx, debtor, creditor)


def fail(tx: Tx, debtor: str, creditor: str | None) -> None:
    """The debtor at the head goes bankrupt: any trial rescue deals are void first (M.BK.1)."""
    revert_deals(tx)
    head = _head(tx.state)
    batch, cash_at = (head.batch, head.cash_at) if isinstance(head, Debt) else (0, 0)
    tx.pop()
    go_bankrupt(tx, debtor, creditor, batch, cash_at)


def assume_jail_fee(tx: Tx, c: cmd.AssumeJailFee) -> None:
    """M.BK.6: the destination's creditor takes over the jail fee; the bankruptcy is to them."""
    st = tx.state
    head = st.head
    if not isinstance(head, JailFine):
        raise IllegalCommand("M.BK.6", "no jail fee after a third failed roll is due")
    debtor, _ = check_declare(st, None)
    owner, _rent = destination_rent(st, head)
    if owner != c.player:
        raise IllegalCommand("M.BK.6", f"only the owner of the destination square may take over the fee ({owner})")
    if st.player(c.player).cash < st.options.jail_fine:
        raise IllegalCommand("M.BK.6", f"{c.player} can't pay the ${st.options.jail_fine} fee")
    tx.pop()
    tx.transfer(c.player, None, st.options.jail_fine, f"jail fee of {debtor} taken over", "M.BK.6")
    tx.emit(ev.LeftJail(player=debtor, how="third_roll"))
    pos = tx.state.player(debtor).position
    tx.emit(ev.Moved(player=debtor, start=pos, to=(pos + sum(head.dice)) % BOARD_SIZE,
                     passed_go=False, how="dice"))
    go_bankrupt(tx, debtor, c.player)


def go_bankrupt(tx: Tx, debtor: str, creditor: str | None, batch: int = 0, cash_at: int = 0) -> None:
    """M.BK.2 (to a player) and M.BK.3 (to the bank)."""
    from engine.ending import finish  # the end of the game lives with ranking

    st = tx.state
    # Buildings go back to the bank at half their cost; that cash is part of what the creditor gets.
    for d in st.owned_by(debtor):
        ds = st.deeds[d]
        if ds.houses or ds.hotel:
            refund = DEEDS[d].house_cost * (ds.houses + 5 * int(ds.hotel)) // 2
            tx.emit(ev.BuildingsSet(deed=d, houses=0, hotel=False))
            tx.transfer(None, debtor, refund, f"buildings on {d} sold to the bank", "M.BUILD.7")
    cash = tx.state.player(debtor).cash
    deeds = tx.state.owned_by(debtor)
    cards = tx.state.player(debtor).jail_cards
    if creditor is not None:
        tx.transfer(debtor, creditor, cash, "bankruptcy", "M.BK.2")
        for d in deeds:  # as they are: no new deals or mortgages (M.BK.2); mortgaged stay so (M.MORT.4)
            tx.emit(ev.DeedTransferred(deed=d, owner=creditor, reason="bankruptcy"))
        for card_key in cards:
            tx.emit(ev.JailCardGiven(card=card_key, giver=debtor, receiver=creditor))
    else:
        tx.transfer(debtor, None, cash, "bankruptcy", "M.BK.3")
        for card_key in cards:  # M.BK.3: to the bottom of their decks
            tx.emit(ev.JailCardReturned(player=debtor, card=card_key))
        for d in deeds:
            if tx.state.deeds[d].mortgaged:
                tx.emit(ev.DeedMortgaged(deed=d, mortgaged=False))  # auctioned unmortgaged (M.BK.3)
            tx.emit(ev.DeedTransferred(deed=d, owner=None, reason="bankruptcy"))
    tx.emit(ev.PlayerBankrupt(player=debtor, creditor=creditor, batch=batch, cash_at=cash_at))
    # Anything still queued for the bankrupt player is void.
    rest = tuple(
        p for p in tx.state.pending
        if debtor not in (getattr(p, "player", None), getattr(p, "debtor", None))
    )
    if rest != tx.state.pending:
        tx.emit(ev.PendingSet(pending=rest))
    if len(tx.state.active_players) <= 1:
        finish(tx, "last player standing")  # M.END.1; (004) no auction when one player remains
        return
    if creditor is None and deeds and tx.state.ending is None:
        # M.BK.3: the bank auctions the deeds one by one, unmortgaged, in board order from GO.
        ordered = [d for d in DEED_ORDER if d in deeds]
        tx.push_back(*(Auction(deed=d, reason="bankruptcy") for d in ordered))
    if creditor is not None and tx.state.options.mortgage_transfer_fee == "at_once":
        # M.MORT.4 / M.TRADE.2 (004): the 10% on each mortgaged deed is a debt of the new owner, who may
        # instead lift the mortgage on the spot for value + 10% (finance.unmortgage).
        fees = tuple(
            Debt(debtor=creditor, payees=((None, trades.transfer_fee(tx.state, d)),),
                 reason=f"10% on mortgaged {d}", rule="M.MORT.4")
            for d in deeds if tx.state.deeds[d].mortgaged
        )
        if fees:
            tx.push_front(*fees)
    if tx.state.turn.player == debtor:
        nxt = tx.state.next_player_after(debtor)
        tx.emit(ev.TurnSet(turn=Turn(player=nxt, phase="pre_roll", number=tx.state.turn.number + 1)))

