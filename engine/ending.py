"""The end of a game: last player standing (M.END.1), the time game's end signal (M.END.2), valuation
(M.END.3), ranking with dice tie-breaks (M.END.4) and whether leading on assets is a win (M.END.5)."""

from __future__ import annotations

from dataclasses import replace

from engine import commands as cmd
from engine import events as ev
from engine.board import DEEDS
from engine.errors import IllegalCommand
from engine.state import (
    Auction,
    BuildingAuction,
    BuildRound,
    Debt,
    GameState,
    JailFine,
    Player,
    TieBreak,
)
from engine.tx import Tx


def valuation(state: GameState, name: str) -> int:
    """M.END.3: cash + printed deed prices + buildings at cost; mortgaged deeds at half price."""
    p = state.player(name)
    total = p.cash
    for d in state.owned_by(name):
        deed, ds = DEEDS[d], state.deeds[d]
        total += deed.price // 2 if ds.mortgaged else deed.price
        total += deed.house_cost * (ds.houses + 5 * int(ds.hotel))
    return total


def _survival(state: GameState, p: Player) -> tuple[int, int]:
    """Later out ranks higher (M.END.4); bankrupt by one Grand Opera card: more cash then ranks higher
    (M.BK.5)."""
    if p.out_batch:
        first = min(q.out_order for q in state.players if q.bankrupt and q.out_batch == p.out_batch)
        return first, p.out_cash
    return p.out_order, 0


def standings(state: GameState) -> list[tuple[str, ...]]:
    """Players in rank order, equal ones grouped (a group of several still needs a tie-break roll)."""
    alive = sorted(state.active_players, key=lambda p: -valuation(state, p.name))
    groups: list[tuple[str, ...]] = []
    for p in alive:
        if groups and valuation(state, groups[-1][0]) == valuation(state, p.name):
            groups[-1] = (*groups[-1], p.name)
        else:
            groups.append((p.name,))
    gone = sorted((p for p in state.players if p.bankrupt), key=lambda p: _survival(state, p), reverse=True)
    groups.extend((p.name,) for p in gone)
    return groups


def ranking(state: GameState) -> tuple[str, ...]:
    """M.END.4 without tie-breaks (seat order within a tie)."""
    return tuple(n for g in standings(state) for n in g)


def finish(tx: Tx, reason: str) -> None:
    """End the game, after a tie-break roll where players stand level on assets (M.END.4)."""
    groups = standings(tx.state)
    if reason != "last player standing" and any(len(g) > 1 for g in groups):
        tx.emit(ev.PendingSet(pending=(TieBreak(groups=tuple(groups), reason=reason),)))
        return
    _ended(tx, tuple(n for g in groups for n in g), reason)


def _ended(tx: Tx, order: tuple[str, ...], reason: str) -> None:
    if reason == "last player standing":
        winner: str | None = order[0]  # M.END.1
    else:
        winner = order[0] if tx.state.options.asset_lead_wins else None  # M.END.5
    tx.emit(ev.GameEnded(ranking=order, reason=reason, winner=winner))


def tie_roll(tx: Tx, c: cmd.Roll) -> None:
    head = tx.state.head
    assert isinstance(head, TieBreak)
    rolling = head.rolling
    done = {n for n, _ in head.rolls}
    waiting = [n for n in rolling if n not in done]
    player = c.player if c.player is not None else waiting[0]
    if player not in waiting:
        raise IllegalCommand("M.END.4", f"only {', '.join(waiting)} roll for the tie now")
    tx.emit(ev.DiceRolled(player=player, dice=c.dice, purpose="tie_break"))
    rolls = (*head.rolls, (player, c.dice[0] + c.dice[1]))
    if len(rolls) < len(rolling):
        tx.replace_head(replace(head, rolls=rolls))
        return
    totals = dict(rolls)
    split = tuple(tuple(n for n in rolling if totals[n] == t) for t in sorted(set(totals.values()), reverse=True))
    groups: list[tuple[str, ...]] = []
    for g in head.groups:
        groups.extend(split if g == rolling else (g,))
    if any(len(g) > 1 for g in groups):
        tx.replace_head(TieBreak(groups=tuple(groups), reason=head.reason))  # level again: roll again
        return
    tx.pop()
    _ended(tx, tuple(g[0] for g in groups), head.reason)


# ---- the time game (M.END.2) ----


def end_signal(tx: Tx, c: cmd.EndSignal) -> None:
    from engine.bankruptcy import check_declare, fail
    from engine.trades import provisional

    st = tx.state
    if st.turn.phase == "game_over":
        raise IllegalCommand("M.END.1", "the game is over")
    if st.ending is not None:
        raise IllegalCommand("M.END.2", "the end signal has already been given")
    t = st.turn
    if t.rolled and t.again:
        last, doubles = t.number, True  # during doubles: this turn goes on until it ends
    elif not t.rolled and t.phase == "pre_roll":
        last, doubles = t.number, st.options.final_turn_doubles
    else:
        last, doubles = t.number + 1, st.options.final_turn_doubles
    tx.emit(ev.EndSignalled(last_turn=last, play_doubles=doubles))
    # Every unfinished negotiation, auction and build is void (M.END.2).
    kept = [p for p in tx.state.pending if not isinstance(p, Auction | BuildRound | BuildingAuction)]
    if tuple(kept) != tx.state.pending:
        tx.emit(ev.PendingSet(pending=tuple(kept)))
    if isinstance(tx.state.head, Debt | JailFine) and provisional(tx.state):
        # A provisional bankruptcy becomes a bankruptcy (M.END.2); a jailed debtor whose own assets pay the
        # fee still pays it and settles at the destination (M.BK.6).
        try:
            debtor, creditor = check_declare(tx.state, None)
        except IllegalCommand:
            return
        fail(tx, debtor, creditor)


def check_end(tx: Tx) -> None:
    """After each command: once the final turn's roll has been played out, the game ends on time."""
    st = tx.state
    if st.ending is None or st.pending or st.turn.phase == "game_over":
        return
    last, doubles = st.ending
    t = st.turn
    done = t.number > last or (t.number == last and t.rolled and (t.phase == "post_roll" or not doubles))
    if done:
        finish(tx, "time")

