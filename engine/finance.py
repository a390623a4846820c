"""Mortgages (M.MORT.1-3) and paying debts (M.TRADE.2); bankruptcy is in bankruptcy.py, the end and ranking
(M.END) in ending.py."""

from __future__ import annotations

from engine import commands as cmd
from engine import events as ev
from engine.auction import eligible
from engine.board import DEEDS

# M.END.3-4 moved to ending.py; re-exported for callers written before the move.
from engine.ending import ranking as ranking
from engine.ending import valuation as valuation
from engine.errors import IllegalCommand, InvalidCommand
from engine.state import Auction, BuildingAuction, BuildRound, BuyDecision, Debt, GameState, JailFine
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


def lifting_fee_due(state: GameState, player: str, deed: str) -> bool:
    """M.MORT.4 (004): the new owner of a bankrupt's mortgaged deed, owing its 10%, may lift it at once."""
    head = state.head
    return (isinstance(head, Debt) and head.rule == "M.MORT.4" and head.debtor == player
            and head.reason == f"10% on mortgaged {deed}")


def unmortgage(tx: Tx, c: cmd.Unmortgage) -> None:
    st = tx.state
    player = _actor(st, c.player)
    _owned_deed(st, player, c.deed, "M.MORT.2")
    if not st.deeds[c.deed].mortgaged:
        raise IllegalCommand("M.MORT.2", f"{c.deed} is not mortgaged")
    fee_due = lifting_fee_due(st, player, c.deed)
    if not (between_turns(st) or fee_due):
        raise IllegalCommand("M.MORT.3", "mortgages are lifted only between turns")
    cost = unmortgage_cost(st, c.deed)
    cash = st.player(player).cash
    if cash < cost:
        raise IllegalCommand("M.MORT.2", f"lifting the mortgage on {c.deed} costs ${cost}, {player} has ${cash}")
    if fee_due:
        tx.pop()  # the 10% due is part of the value + 10% paid now, not paid twice
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
