"""Trades (M.TRADE.1-6) and the mortgage fee on deeds changing hands by trade (M.MORT.4).

A trade is one-to-one and handed over on the spot: cash, deeds, Get Out of Jail Free cards. Every JMA
prohibition is refused with its rule ID. Rescue deals in a provisional bankruptcy (bankruptcy.py) are
checked by the same `check_deal`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from engine import commands as cmd
from engine import events as ev
from engine.board import DEEDS
from engine.errors import IllegalCommand, InvalidCommand
from engine.finance import _pay_debt_if_able, between_turns, liquidation_value, unmortgage_cost
from engine.state import (
    Auction,
    BuildingAuction,
    BuildRound,
    BuyDecision,
    Debt,
    GameState,
    JailFine,
)
from engine.tx import Tx, group_of

GOOJF_PRICE_LIMIT = 50  # M.TRADE.4: a GOOJF card may not be sold for $50 or more


class Deal(NamedTuple):
    """`giver` hands over the give_* part and receives the get_* part from `receiver`."""

    giver: str
    receiver: str
    give_cash: int
    give_deeds: tuple[str, ...]
    give_cards: tuple[str, ...]
    get_cash: int
    get_deeds: tuple[str, ...]
    get_cards: tuple[str, ...]

    def side(self, who: str) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        """What `who` hands over."""
        if who == self.giver:
            return self.give_cash, self.give_deeds, self.give_cards
        return self.get_cash, self.get_deeds, self.get_cards

    def other(self, who: str) -> str:
        return self.receiver if who == self.giver else self.giver

    def to_json(self) -> tuple[dict[str, Any], dict[str, Any]]:
        give = {"cash": self.give_cash, "deeds": list(self.give_deeds), "jail_cards": list(self.give_cards)}
        get = {"cash": self.get_cash, "deeds": list(self.get_deeds), "jail_cards": list(self.get_cards)}
        return give, get

    def reversed(self) -> Deal:
        return Deal(self.receiver, self.giver, self.get_cash, self.get_deeds, self.get_cards,
                    self.give_cash, self.give_deeds, self.give_cards)


def deal_of(raw: tuple[Any, ...]) -> Deal:
    """A deal stored in a pending value (a plain tuple after a JSON round trip)."""
    g, r, gc, gd, gk, tc, td, tk = raw
    return Deal(g, r, gc, tuple(gd), tuple(gk), tc, tuple(td), tuple(tk))


def _side(state: GameState, owner: str, spec: Mapping[str, Any]) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    extra = set(spec) - {"cash", "deeds", "jail_cards"}
    if extra:
        what = ", ".join(sorted(extra))
        raise IllegalCommand("M.TRADE.3", f"only cash, deeds and GOOJF cards can be traded, not {what}")
    cash = spec.get("cash", 0)
    if isinstance(cash, bool) or not isinstance(cash, int) or cash < 0:
        raise InvalidCommand(f"trade: cash must be a whole number >= 0, got {cash!r}")
    deeds = spec.get("deeds", [])
    if not isinstance(deeds, list | tuple) or any(not isinstance(d, str) for d in deeds):
        raise InvalidCommand("trade: deeds must be a list of deed ids")
    for d in deeds:
        if d not in DEEDS:
            raise InvalidCommand(f"trade: unknown deed {d!r}")
        if state.deeds[d].owner != owner:
            raise IllegalCommand("M.TRADE.3", f"{owner} does not own {d}")
    if len(set(deeds)) != len(deeds):
        raise InvalidCommand("trade: a deed is listed twice")
    held = list(state.player(owner).jail_cards)
    raw_cards = spec.get("jail_cards", [])
    cards: list[str] = []
    if isinstance(raw_cards, int) and not isinstance(raw_cards, bool):
        if raw_cards > len(held) or raw_cards < 0:
            raise IllegalCommand("M.TRADE.3", f"{owner} holds {len(held)} GOOJF card(s), not {raw_cards}")
        cards = held[:raw_cards]
    elif isinstance(raw_cards, list | tuple):
        for k in raw_cards:
            if not isinstance(k, str):
                raise InvalidCommand("trade: jail_cards must be card ids or a count")
            key = k if ":" in k else next((h for h in held if h.endswith(f":{k}")), k)
            if key not in held or cards.count(key) >= held.count(key):
                raise IllegalCommand("M.TRADE.3", f"{owner} does not hold {k}")
            cards.append(key)
    else:
        raise InvalidCommand("trade: jail_cards must be card ids or a count")
    return cash, tuple(deeds), tuple(cards)


def make_deal(state: GameState, giver: str, receiver: str, give: Mapping[str, Any], get: Mapping[str, Any]) -> Deal:
    for who in (giver, receiver):
        if not state.has_player(who):
            raise IllegalCommand("M.TRADE.3", f"unknown player {who!r}")
        if state.player(who).bankrupt:
            raise IllegalCommand("M.TRADE.3", f"{who} is bankrupt")
    if giver == receiver:
        raise IllegalCommand("M.TRADE.3", "a trade is between two players")
    gc, gd, gk = _side(state, giver, give)
    tc, td, tk = _side(state, receiver, get)
    return Deal(giver, receiver, gc, gd, gk, tc, td, tk)


def claim_in(state: GameState, deal: Deal) -> tuple[str, int] | None:
    """(creditor, amount) of an unpaid debt between the two parties, which counts as cash (M.TRADE.3)."""
    head = state.head
    if isinstance(head, Debt) and head.creditor is not None and {head.debtor, head.creditor} == {
        deal.giver, deal.receiver
    }:
        return head.creditor, head.amount
    return None


def check_deal(state: GameState, deal: Deal, lift: tuple[str, ...] = (), claims: bool = True) -> int:
    """Refuse a deal JMA forbids (M.TRADE.3-5, M.MORT.4); otherwise the mortgage fees it will cost.
    `claims`: an unpaid debt between the parties counts as cash (not for trial rescue deals, M.BK.1)."""
    claim = claim_in(state, deal) if claims else None
    for who in (deal.giver, deal.receiver):
        cash, deeds, cards = deal.side(who)
        usable = state.player(who).cash + (claim[1] if claim and claim[0] == who else 0)
        if cash > usable:
            raise IllegalCommand("M.TRADE.3", f"{who} has ${state.player(who).cash}, not ${cash}, on the spot")
        for d in deeds:
            built = [g for g in group_of(d) if state.deeds[g].houses or state.deeds[g].hotel]
            if built:
                raise IllegalCommand(
                    "M.TRADE.5",
                    f"{d} can't change hands while its group has buildings ({', '.join(built)}): sell first",
                )
    for who in (deal.giver, deal.receiver):
        cash, deeds, cards = deal.side(who)
        got_cash, got_deeds, got_cards = deal.side(deal.other(who))
        if not (cash or deeds or cards):
            raise IllegalCommand("M.TRADE.4", f"{who} gives nothing: gifts and forgiving payments are forbidden")
        if cash and got_cash:
            raise IllegalCommand("M.TRADE.4", "cash both ways is a loan or a gift in disguise: net it")
        if deeds and not got_deeds:
            floor = sum(DEEDS[d].mortgage for d in deeds if not state.deeds[d].mortgaged)
            if got_cash < floor:
                raise IllegalCommand(
                    "M.TRADE.4",
                    f"unmortgaged deeds may not go below their mortgage value (${floor}), offered ${got_cash}",
                )
        if cards and not deeds and not got_deeds and not got_cards and got_cash >= GOOJF_PRICE_LIMIT * len(cards):
            raise IllegalCommand("M.TRADE.4", f"a GOOJF card may not be sold for ${GOOJF_PRICE_LIMIT} or more")
    last = state.last_trade
    if last is not None and last[4] == state.turn.number:
        g, r, give, get = last[0], last[1], last[2], last[3]
        before = Deal(g, r, give.get("cash", 0), tuple(give.get("deeds", ())), tuple(give.get("jail_cards", ())),
                      get.get("cash", 0), tuple(get.get("deeds", ())), tuple(get.get("jail_cards", ())))
        if _buys_back(before, deal):
            raise IllegalCommand("M.TRADE.4", "buying back on the spot at another price is forbidden")
    return _fees(state, deal, lift, claim)


def _buys_back(before: Deal, now: Deal) -> bool:
    """The same deeds and cards going straight back between the same two players, for other money."""
    for b in (before, before.reversed()):
        if b.giver == now.receiver and b.receiver == now.giver:
            items_back = (set(b.give_deeds) == set(now.give_deeds) and set(b.get_deeds) == set(now.get_deeds)
                          and sorted(b.give_cards) == sorted(now.give_cards)
                          and sorted(b.get_cards) == sorted(now.get_cards))
            received = b.get_cash - b.give_cash  # what b.giver got then
            paid_back = now.get_cash - now.give_cash  # what the same player pays now
            if items_back and received != paid_back:
                return True
    return False


def transfer_fee(state: GameState, deed: str) -> int:
    """M.MORT.4: the 10% a new owner pays on a mortgaged deed (jma-2003, classic)."""
    return unmortgage_cost(state, deed) - DEEDS[deed].mortgage


def _fees(state: GameState, deal: Deal, lift: tuple[str, ...], claim: tuple[str, int] | None) -> int:
    received = {d: deal.receiver for d in deal.give_deeds} | {d: deal.giver for d in deal.get_deeds}
    for d in lift:
        if d not in received or not state.deeds[d].mortgaged:
            raise IllegalCommand("M.MORT.4", f"{d} is not a mortgaged deed changing hands in this trade")
    total = 0
    for who in (deal.giver, deal.receiver):
        due = 0
        for d, new_owner in received.items():
            if new_owner != who or not state.deeds[d].mortgaged:
                continue
            if d in lift:
                due += unmortgage_cost(state, d)  # lifted at once: mortgage + 10% (M.MORT.4)
            elif state.options.mortgage_transfer_fee == "at_once":
                due += transfer_fee(state, d)
        cash_after = state.player(who).cash - deal.side(who)[0] + deal.side(deal.other(who))[0]
        if claim and claim[0] == who:
            cash_after += min(claim[1], deal.side(who)[0])  # paid by setting the claim against the debt
        elif claim:
            # The debtor's side: cash the creditor gives is set against the debt (execute), not paid out,
            # so it can't pay the fees (counted, it let a debtor with $13 take two mortgaged deeds for $28
            # of fees and end below $0).
            cash_after -= min(claim[1], deal.side(deal.other(who))[0])
        if due > cash_after:
            raise IllegalCommand("M.MORT.4", f"{who} owes the bank ${due} for mortgaged deeds, has ${cash_after}")
        total += due
    return total


def execute(tx: Tx, deal: Deal, lift: tuple[str, ...] = (), context: str = "between_turns",
            fees: bool = True) -> None:
    st = tx.state
    mortgaged = {d for d in (*deal.give_deeds, *deal.get_deeds) if st.deeds[d].mortgaged}
    claim = claim_in(st, deal) if context != "rescue" else None
    for who in (deal.giver, deal.receiver):
        cash, deeds, cards = deal.side(who)
        to = deal.other(who)
        if claim and claim[0] == who and cash:
            # The creditor's unpaid claim counts as cash (M.TRADE.3): set it against the debt first.
            offset = min(cash, claim[1])
            head = tx.state.head
            assert isinstance(head, Debt)
            if offset == claim[1]:
                tx.pop()
            else:
                tx.replace_head(replace(head, payees=((who, claim[1] - offset),)))
            cash -= offset
        tx.transfer(who, to, cash, f"trade with {to}", "M.TRADE.3")
        for d in deeds:
            tx.emit(ev.DeedTransferred(deed=d, owner=to, reason=f"trade ({context})"))
        for k in cards:
            tx.emit(ev.JailCardGiven(card=k, giver=who, receiver=to))
    give, get = deal.to_json()
    tx.emit(ev.Traded(giver=deal.giver, receiver=deal.receiver, give=give, get=get, turn_number=tx.state.turn.number,
                      context=context))  # M.TRADE.6: announced
    if fees:
        pay_mortgage_fees(tx, sorted(mortgaged), lift, debt=False)


def pay_mortgage_fees(tx: Tx, deeds: list[str], lift: tuple[str, ...], debt: bool) -> None:
    """M.MORT.4 for deeds that have just changed owner: lift now (mortgage + 10%), or the 10% fee at once
    where the ruleset says so (a debt after a bankruptcy, 004; paid on the spot after a trade)."""
    st = tx.state
    for d in deeds:
        owner = st.deeds[d].owner
        if owner is None:
            continue
        if d in lift:
            tx.transfer(owner, None, unmortgage_cost(tx.state, d), f"lifted the mortgage on {d}", "M.MORT.4")
            tx.emit(ev.DeedMortgaged(deed=d, mortgaged=False))
        elif st.options.mortgage_transfer_fee == "at_once":
            if debt:
                tx.charge(owner, ((None, transfer_fee(st, d)),), f"10% on mortgaged {d}", "M.MORT.4")
            else:
                tx.transfer(owner, None, transfer_fee(st, d), f"10% on mortgaged {d}", "M.MORT.4")


def provisional(state: GameState) -> bool:
    """M.BK.1: the debtor at the head can't pay from own assets without negotiating."""
    from engine.bankruptcy import need  # the rescue threshold lives with bankruptcy

    head = state.head
    if isinstance(head, Debt):
        return liquidation_value(state, head.debtor) < need(state, head)
    if isinstance(head, JailFine):
        p = state.player(head.player)
        return not p.jail_cards and liquidation_value(state, head.player) < need(state, head)
    return False


def trade_context(state: GameState, deal: Deal) -> str:
    """M.TRADE.1 timing; the context name, or a refusal citing the rule."""
    if state.turn.phase == "game_over":
        raise IllegalCommand("M.END.1", "the game is over")
    if state.ending is not None:
        raise IllegalCommand("M.END.2", "no negotiation after the end signal")
    head = state.head
    parties = (deal.giver, deal.receiver)
    match head:
        case BuildRound():
            raise IllegalCommand("M.BUILD.5", "negotiation waits while building declarations are open")
        case Auction() | BuildingAuction():
            raise IllegalCommand("M.AUC.4", "no negotiation during an auction")
        case BuyDecision():
            raise IllegalCommand("M.BUY.1", "cash for a purchase is raised by mortgaging or selling, not negotiation")
        case Debt():
            if head.debtor not in parties:
                raise IllegalCommand("M.TRADE.1", f"only the debtor {head.debtor} may negotiate now")
            if provisional(state) and state.options.provisional_bankruptcy:
                raise IllegalCommand("M.BK.1", f"{head.debtor} is provisionally bankrupt: rescue offers only")
            if state.player(head.debtor).cash >= head.amount:
                raise IllegalCommand("M.TRADE.1", f"{head.debtor} can pay in cash; debt negotiation is over")
            return "debt"
        case JailFine():
            # M.JAIL.7: after the third failed roll, negotiation only to get a GOOJF card (004), $50 or not.
            if head.player not in parties:
                raise IllegalCommand("M.JAIL.7", f"only {head.player} may negotiate now, for a GOOJF card")
            if not deal.side(deal.other(head.player))[2]:
                raise IllegalCommand("M.JAIL.7", "negotiation after the third failed roll is only for a GOOJF card")
            return "jail"
        case None:  # a jailed player trades like anyone (M.JAIL.6)
            if not between_turns(state):
                raise IllegalCommand("M.TRADE.1", "trades only between turns (not during doubles or a payment)")
            return "between_turns"
    raise IllegalCommand("M.TRADE.1", f"no trades while {head.kind} is pending")


def trade(tx: Tx, c: cmd.Trade) -> None:
    st = tx.state
    deal = make_deal(st, c.giver, c.to, c.give, c.get)
    context = trade_context(st, deal)
    check_deal(st, deal, c.lift)
    execute(tx, deal, c.lift, context)
    _pay_debt_if_able(tx)
