"""Mortgages (M.MORT.1-3), paying debts (M.TRADE.2), bankruptcy (M.BK.1-3), the end and ranking (M.END)."""

from __future__ import annotations

from engine import commands as cmd
from engine import events as ev
from engine.auction import eligible
from engine.board import DEED_ORDER, DEEDS
from engine.errors import IllegalCommand, InvalidCommand
from engine.state import Auction, BuildingAuction, BuildRound, BuyDecision, Debt, GameState, JailFine, Turn
from engine.tx import Tx, group_of


def unmortgage_cost(state: GameState, deed: str) -> int:
    """M.MORT.2: mortgage value + 10%, rounded as the ruleset says (up to the dollar by default)."""
    value = DEEDS[deed].mortgage * 11
    rounding = state.options.unmortgage_rounding
    if rounding == "down":
        return value // 10
    if rounding == "nearest":
        return (value + 5) // 10
    return -(-value // 10)


def liquidation_value(state: GameState, name: str) -> int:
    """Cash a player can raise alone: cash + buildings sold at half cost + unmortgaged deeds' mortgage
    values (M.BUILD.7, M.MORT.1). Below a debt, the debtor is (provisionally) bankrupt (M.BK.1)."""
    p = state.player(name)
    total = p.cash
    for d in state.owned_by(name):
        deed, ds = DEEDS[d], state.deeds[d]
        total += (deed.house_cost * (ds.houses + 5 * int(ds.hotel))) // 2
        if not ds.mortgaged:
            total += deed.mortgage
    return total


def between_turns(state: GameState) -> bool:
    """No roll in progress and nothing pending: trades, building, (un)mortgaging are allowed (M.MORT.3).
    Open building declarations still count as between turns (selling, unmortgaging go first, M.BUILD.5);
    after the end signal nothing is (M.END.2)."""
    if state.ending is not None:
        return False
    pending = state.pending and not (len(state.pending) == 1 and isinstance(state.head, BuildRound))
    if pending or state.turn.phase not in ("pre_roll", "post_roll"):
        return False
    return state.turn.phase == "post_roll" or (not state.turn.rolled and state.turn.doubles == 0)


def raising_cash(state: GameState, player: str) -> bool:
    """M.MORT.3: outside between-turns, mortgaging only to pay for a purchase, a bid or a debt."""
    head = state.head
    match head:
        case Debt():
            return head.debtor == player
        case JailFine() | BuyDecision():
            return head.player == player
        case Auction():
            return player in eligible(state, head) and player not in head.out
        case BuildingAuction():
            return not head.placing or head.high_bidder == player  # M.AUC.4 applied to M.BUILD.6 bids
    return False


def _owned_deed(state: GameState, player: str, deed: str, rule: str) -> None:
    if deed not in DEEDS:
        raise InvalidCommand(f"unknown deed {deed!r}")
    if not state.has_player(player):
        raise IllegalCommand(rule, f"unknown player {player!r}")
    owner = state.deeds[deed].owner
    if owner != player:
        raise IllegalCommand(rule, f"{player} does not own {deed}" + (f" ({owner} does)" if owner else ""))


def _actor(state: GameState, name: str | None) -> str:
    if name is not None:
        return name
    head = state.head
    if isinstance(head, Debt):
        return head.debtor
    if isinstance(head, JailFine | BuyDecision):
        return head.player
    return state.turn.player


def mortgage(tx: Tx, c: cmd.Mortgage) -> None:
    st = tx.state
    player = _actor(st, c.player)
    _owned_deed(st, player, c.deed, "M.MORT.1")
    if st.deeds[c.deed].mortgaged:
        raise IllegalCommand("M.MORT.1", f"{c.deed} is already mortgaged")
    built = [d for d in group_of(c.deed) if st.deeds[d].houses or st.deeds[d].hotel]
    if built:
        raise IllegalCommand("M.MORT.1", f"sell the buildings on {DEEDS[c.deed].group} first ({', '.join(built)})")
    if not (between_turns(st) or raising_cash(st, player)):
        raise IllegalCommand("M.MORT.3", "mortgaging now only to raise cash for a purchase, a bid or a debt")
    tx.emit(ev.DeedMortgaged(deed=c.deed, mortgaged=True))
    tx.transfer(None, player, DEEDS[c.deed].mortgage, f"mortgaged {c.deed}", "M.MORT.1")
    _pay_debt_if_able(tx)


def unmortgage(tx: Tx, c: cmd.Unmortgage) -> None:
    st = tx.state
    player = _actor(st, c.player)
    _owned_deed(st, player, c.deed, "M.MORT.2")
    if not st.deeds[c.deed].mortgaged:
        raise IllegalCommand("M.MORT.2", f"{c.deed} is not mortgaged")
    if not between_turns(st):
        raise IllegalCommand("M.MORT.3", "mortgages are lifted only between turns")
    cost = unmortgage_cost(st, c.deed)
    cash = st.player(player).cash
    if cash < cost:
        raise IllegalCommand("M.MORT.2", f"lifting the mortgage on {c.deed} costs ${cost}, {player} has ${cash}")
    tx.transfer(player, None, cost, f"lifted the mortgage on {c.deed}", "M.MORT.2")
    tx.emit(ev.DeedMortgaged(deed=c.deed, mortgaged=False))


def _pay_debt_if_able(tx: Tx) -> None:
    """A debt is paid at once as soon as the debtor has raised the cash (M.TRADE.1)."""
    head = tx.state.head
    if isinstance(head, Debt) and tx.state.player(head.debtor).cash >= head.amount:
        _settle(tx, head)


def _settle(tx: Tx, debt: Debt) -> None:
    tx.pop()
    for payee, amount in debt.payees:
        tx.transfer(debt.debtor, payee, amount, debt.reason, debt.rule)


def pay_debt(tx: Tx, c: cmd.PayDebt) -> None:
    head = tx.state.head
    if not isinstance(head, Debt):
        raise IllegalCommand("M.TRADE.2", "no debt is due")
    if c.player is not None and c.player != head.debtor:
        raise IllegalCommand("M.TRADE.2", f"the debt is {head.debtor}'s, not {c.player}'s")
    cash = tx.state.player(head.debtor).cash
    if cash < head.amount:
        raise IllegalCommand(
            "M.TRADE.2", f"{head.debtor} has ${cash} of ${head.amount} due; mortgage or sell buildings first"
        )
    _settle(tx, head)


def declare_bankruptcy(tx: Tx, c: cmd.DeclareBankruptcy) -> None:
    st = tx.state
    head = st.head
    if isinstance(head, Debt):
        debtor, amount, creditor = head.debtor, head.amount, head.creditor
    elif isinstance(head, JailFine):
        # The fee after the third failed roll is a debt to the bank (M.TRADE.2, M.BK.6).
        debtor, amount, creditor = head.player, st.options.jail_fine, None
    else:
        raise IllegalCommand("M.BK.1", "bankruptcy is declared only on a debt that can't be paid")
    if c.player is not None and c.player != debtor:
        raise IllegalCommand("M.BK.1", f"the debt is {debtor}'s, not {c.player}'s")
    if isinstance(head, JailFine) and st.player(debtor).jail_cards:
        raise IllegalCommand("M.BK.6", f"{debtor} holds a Get Out of Jail Free card and must use it")
    can_raise = liquidation_value(st, debtor)
    if can_raise >= amount:
        raise IllegalCommand(
            "M.BK.1", f"{debtor} can raise ${can_raise} by selling and mortgaging; the debt is ${amount}"
        )
    tx.pop()
    go_bankrupt(tx, debtor, creditor)


def go_bankrupt(tx: Tx, debtor: str, creditor: str | None) -> None:
    """M.BK.2 (to a player) and M.BK.3 (to the bank)."""
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
        for d in deeds:  # mortgaged deeds stay mortgaged (M.BK.2, M.MORT.4)
            tx.emit(ev.DeedTransferred(deed=d, owner=creditor, reason="bankruptcy"))
        for card_key in cards:
            tx.emit(ev.JailCardGiven(card=card_key, giver=debtor, receiver=creditor))
    else:
        tx.transfer(debtor, None, cash, "bankruptcy", "M.BK.3")
        for card_key in cards:
            tx.emit(ev.JailCardReturned(player=debtor, card=card_key))
        for d in deeds:
            if tx.state.deeds[d].mortgaged:
                tx.emit(ev.DeedMortgaged(deed=d, mortgaged=False))
            tx.emit(ev.DeedTransferred(deed=d, owner=None, reason="bankruptcy"))
    tx.emit(ev.PlayerBankrupt(player=debtor, creditor=creditor))
    # Anything still queued for the bankrupt player is void.
    rest = tuple(
        p for p in tx.state.pending
        if debtor not in (getattr(p, "player", None), getattr(p, "debtor", None))
    )
    if rest != tx.state.pending:
        tx.emit(ev.PendingSet(pending=rest))
    survivors = tx.state.active_players
    if len(survivors) <= 1:
        tx.emit(ev.GameEnded(ranking=ranking(tx.state), reason="last player standing"))  # M.END.1
        return
    if creditor is None and deeds:
        # M.BK.3: the bank auctions the deeds one by one, unmortgaged, in board order from GO.
        ordered = [d for d in DEED_ORDER if d in deeds]
        tx.push_back(*(Auction(deed=d, reason="bankruptcy") for d in ordered))
    if tx.state.turn.player == debtor:
        nxt = tx.state.next_player_after(debtor)
        tx.emit(ev.TurnSet(turn=Turn(player=nxt, phase="pre_roll", number=tx.state.turn.number + 1)))


def valuation(state: GameState, name: str) -> int:
    """M.END.3: cash + printed deed prices + buildings at cost; mortgaged deeds at half price."""
    p = state.player(name)
    total = p.cash
    for d in state.owned_by(name):
        deed, ds = DEEDS[d], state.deeds[d]
        total += deed.price // 2 if ds.mortgaged else deed.price
        total += deed.house_cost * (ds.houses + 5 * int(ds.hotel))
    return total


def ranking(state: GameState) -> tuple[str, ...]:
    """M.END.4: players still in by assets, then the bankrupt by how long they survived."""
    alive = sorted(state.active_players, key=lambda p: -valuation(state, p.name))
    gone = sorted((p for p in state.players if p.bankrupt), key=lambda p: -p.out_order)
    return tuple(p.name for p in (*alive, *gone))
