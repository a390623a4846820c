"""Bank auctions (M.AUC.1-4): open outcry from $10 in $10 steps, ties by turn order, void-and-rerun."""

from __future__ import annotations

from dataclasses import replace

from engine import commands as cmd
from engine import events as ev
from engine.errors import IllegalCommand
from engine.state import Auction, GameState
from engine.tx import Tx


def eligible(state: GameState, auction: Auction) -> tuple[str, ...]:
    """Everyone still in the game may bid, the decliner too (M.AUC.1), except M.AUC.2 exclusions."""
    return tuple(p.name for p in state.players if not p.bankrupt and p.name not in auction.excluded)


def still_bidding(state: GameState, auction: Auction) -> tuple[str, ...]:
    return tuple(n for n in eligible(state, auction) if n not in auction.out)


def tie_priority(state: GameState) -> list[str]:
    """M.AUC.3: equal bids at the same moment go to the player nearest in turn order, counting from the
    player whose turn is next."""
    start = state.next_player_after(state.turn.player)
    order = [start]
    while len(order) < len(state.active_players):
        order.append(state.next_player_after(order[-1]))
    return order


def _head(state: GameState) -> Auction:
    head = state.head
    if not isinstance(head, Auction):
        raise IllegalCommand("M.AUC.1", "no auction is open")
    return head


def _check_bidder(state: GameState, auction: Auction, player: str) -> None:
    if not state.has_player(player):
        raise IllegalCommand("M.AUC.1", f"unknown player {player!r}")
    if state.player(player).bankrupt:
        raise IllegalCommand("M.AUC.1", f"{player} is bankrupt")
    if player in auction.excluded:
        raise IllegalCommand("M.AUC.2", f"{player} won this auction without paying and is left out of the re-run")
    if player in auction.out:
        raise IllegalCommand("M.AUC.1", f"{player} has passed in this auction")


def bid(tx: Tx, c: cmd.Bid) -> None:
    st = tx.state
    auction = _head(st)
    _check_bidder(st, auction, c.player)
    opts = st.options
    if c.amount < opts.auction_min_bid or c.amount % opts.auction_step:
        raise IllegalCommand(
            "M.AUC.1", f"bids start at ${opts.auction_min_bid} and go in ${opts.auction_step} steps, not ${c.amount}"
        )
    if c.amount < auction.high_bid or (c.amount == auction.high_bid and not c.tie):
        raise IllegalCommand("M.AUC.1", f"a bid must exceed the standing ${auction.high_bid} by {auction.high_bidder}")
    if c.amount == auction.high_bid and auction.high_bidder is not None:
        if auction.high_bidder == c.player:
            raise IllegalCommand("M.AUC.1", f"{c.player} already holds the ${c.amount} bid")
        order = tie_priority(st)
        if order.index(auction.high_bidder) < order.index(c.player):
            raise IllegalCommand(
                "M.AUC.3", f"equal bids of ${c.amount}: {auction.high_bidder} is nearer in turn order and keeps it"
            )
    tx.replace_head(replace(auction, high_bid=c.amount, high_bidder=c.player))
    _maybe_close(tx)


def pass_bid(tx: Tx, c: cmd.PassBid) -> None:
    st = tx.state
    auction = _head(st)
    _check_bidder(st, auction, c.player)
    if auction.high_bidder == c.player:
        raise IllegalCommand("M.AUC.1", f"{c.player} holds the standing bid and can't pass")
    tx.replace_head(replace(auction, out=(*auction.out, c.player)))
    _maybe_close(tx)


def _maybe_close(tx: Tx) -> None:
    st = tx.state
    auction = _head(st)
    remaining = still_bidding(st, auction)
    if auction.high_bidder is None:
        if not remaining:
            tx.pop()  # nobody bid: the deed stays with the bank
        return
    if remaining != (auction.high_bidder,):
        return
    winner, price = auction.high_bidder, auction.high_bid
    if st.player(winner).cash < price:
        # M.AUC.2: a winner who can't pay voids the result; the auction runs again without them.
        rerun = Auction(deed=auction.deed, excluded=(*auction.excluded, winner), reason=auction.reason)
        if eligible(st, rerun):
            tx.replace_head(rerun)
        else:
            tx.pop()
        return
    tx.pop()
    tx.transfer(winner, None, price, f"auction of {auction.deed}", "M.AUC.1")
    tx.emit(ev.DeedTransferred(deed=auction.deed, owner=winner, reason="auction"))

