"""Dice and turns: the start-order roll-off, moving, doubles, third doubles, jail, ending a turn."""

from __future__ import annotations

from dataclasses import replace

from engine import cards
from engine import commands as cmd
from engine import events as ev
from engine.board import BOARD_SIZE
from engine.errors import IllegalCommand
from engine.landing import land, utility_roll
from engine.state import GameState, JailFine, Pending, StartOrder, Turn, UtilityRoll
from engine.tx import Tx, require_player

MAX_JAIL_TURNS = 3  # M.JAIL.3
DOUBLES_TO_JAIL = 3  # M.DICE.4


def describe_pending(head: Pending) -> tuple[str, str]:
    """(rule, what must happen first) for a pending decision that blocks other play."""
    match head:
        case StartOrder():
            return "M.SETUP.2", f"the start order is still being rolled ({', '.join(head.rolling)})"
        case JailFine():
            return "M.JAIL.3", f"{head.player} must pay the $50 fee or use a card after the third failed roll"
        case UtilityRoll():
            return "M.RENT.4", f"{head.player} must roll the dice for the rent on {head.deed}"
    describe = getattr(head, "describe", None)
    if describe is not None:
        rule_text: tuple[str, str] = describe()
        return rule_text
    kind = head.kind
    rules = {"buy": "M.BUY.1", "auction": "M.AUC.1", "card": "M.CARD.1", "debt": "M.TRADE.2", "tax_choice": "M.TAX.1"}
    data = head.to_json()
    who = data.get("player") or data.get("debtor") or ""
    what = {
        "buy": f"{who} must buy or decline {data.get('deed')}",
        "auction": f"the auction of {data.get('deed')} is open",
        "card": f"{who} must draw a {data.get('deck')} card",
        "debt": f"{who} owes ${data.get('amount')} ({data.get('reason')})",
        "tax_choice": f"{who} must choose the income tax ($200 or 10%)",
    }[kind]
    return rules[kind], what


def blocked(state: GameState) -> None:
    if state.turn.phase == "game_over":
        raise IllegalCommand("M.END.1", "the game is over")
    if state.head is not None:
        rule, what = describe_pending(state.head)
        raise IllegalCommand(rule, f"{what} first")


# ---- roll ----


def roll(tx: Tx, c: cmd.Roll) -> None:
    st = tx.state
    if st.turn.phase == "game_over":
        raise IllegalCommand("M.END.1", "the game is over")
    head = st.head
    if isinstance(head, StartOrder):
        _start_order_roll(tx, head, c)
        return
    if isinstance(head, UtilityRoll):
        player = require_player(st, c.player, head.player, "M.RENT.4", "the rent roll")
        utility_roll(tx, player, c.dice)
        return
    blocked(st)
    if st.turn.phase == "post_roll":
        nxt = st.next_player_after(st.turn.player)
        if c.player is not None and c.player == st.turn.player and nxt != st.turn.player:
            if st.current.in_jail:
                raise IllegalCommand("M.DICE.5", f"{c.player} went to jail; the turn passes to {nxt}")
            raise IllegalCommand("M.DICE.3", f"{c.player} threw no doubles; the turn passes to {nxt}")
        # The next throw seen on the table belongs to the next player (M.DICE.6): the turn ends here.
        _end(tx)
    st = tx.state
    player = require_player(st, c.player, st.turn.player, "M.DICE.6", "the roll")
    if st.player(player).in_jail:
        _jail_roll(tx, player, c.dice)
    else:
        _move_roll(tx, player, c.dice)


def _move_roll(tx: Tx, player: str, dice: tuple[int, int]) -> None:
    tx.emit(ev.DiceRolled(player=player, dice=dice, purpose="move"))
    turn = tx.state.turn
    doubles = dice[0] == dice[1]
    count = turn.doubles + 1 if doubles else turn.doubles
    new_turn = replace(turn, doubles=count, again=doubles, rolled=True, last_dice=dice)
    if doubles and count >= DOUBLES_TO_JAIL:
        # M.DICE.4: third doubles in a row -> jail without moving by that roll; the turn ends.
        tx.emit(ev.TurnSet(turn=replace(new_turn, again=False)))
        tx.send_to_jail(player, "third_doubles")
        return
    tx.emit(ev.TurnSet(turn=new_turn))
    pos = tx.state.player(player).position
    tx.move_to(player, (pos + dice[0] + dice[1]) % BOARD_SIZE, "dice")
    land(tx, player)


def _jail_roll(tx: Tx, player: str, dice: tuple[int, int]) -> None:
    """M.JAIL.3/5: rolling in jail without paying is a try for doubles."""
    tx.emit(ev.DiceRolled(player=player, dice=dice, purpose="jail"))
    turn = replace(tx.state.turn, rolled=True, again=False, last_dice=dice)
    tx.emit(ev.TurnSet(turn=turn))
    if dice[0] == dice[1]:
        # Out by doubles: move by that roll, no extra roll (M.JAIL.3).
        tx.emit(ev.LeftJail(player=player, how="doubles"))
        _move_by(tx, player, dice)
        return
    tx.emit(ev.JailRollFailed(player=player))
    if tx.state.player(player).jail_turns >= MAX_JAIL_TURNS:
        tx.push_front(JailFine(player=player, dice=dice))


def _move_by(tx: Tx, player: str, dice: tuple[int, int]) -> None:
    pos = tx.state.player(player).position
    tx.move_to(player, (pos + dice[0] + dice[1]) % BOARD_SIZE, "dice")
    land(tx, player)


def _start_order_roll(tx: Tx, head: StartOrder, c: cmd.Roll) -> None:
    """M.SETUP.2: everyone rolls, highest first; tied players roll again among themselves."""
    rolling = head.rolling
    done = {n for n, _ in head.rolls}
    waiting = [n for n in rolling if n not in done]
    player = c.player if c.player is not None else waiting[0]
    if player not in waiting:
        if player in done:
            raise IllegalCommand("M.SETUP.2", f"{player} has already rolled for the start order")
        raise IllegalCommand("M.SETUP.2", f"only {', '.join(waiting)} roll for the start order now")
    tx.emit(ev.DiceRolled(player=player, dice=c.dice, purpose="start_order"))
    rolls = (*head.rolls, (player, c.dice[0] + c.dice[1]))
    if len(rolls) < len(rolling):
        tx.replace_head(replace(head, rolls=rolls))
        return
    totals = dict(rolls)
    split = tuple(
        tuple(n for n in rolling if totals[n] == t) for t in sorted(set(totals.values()), reverse=True)
    )
    groups: list[tuple[str, ...]] = []
    for g in head.groups:
        groups.extend(split if g == rolling else (g,))
    if all(len(g) == 1 for g in groups):
        order = tuple(g[0] for g in groups)
        tx.emit(ev.StartOrderSet(order=order))
        tx.pop()
        tx.emit(ev.TurnSet(turn=Turn(player=order[0], phase="pre_roll")))
    else:
        tx.replace_head(StartOrder(groups=tuple(groups)))


# ---- jail ----


def pay_jail_fine(tx: Tx, c: cmd.PayJailFine) -> None:
    st = tx.state
    fine = st.options.jail_fine
    head = st.head
    if isinstance(head, JailFine):
        player = require_player(st, c.player, head.player, "M.JAIL.3", "the jail fee")
        cash = st.player(player).cash
        if cash < fine:
            raise IllegalCommand(
                "M.JAIL.7", f"{player} has ${cash}; the ${fine} fee is a debt: mortgage or sell to raise it first"
            )
        tx.pop()
        tx.transfer(player, None, fine, "jail fee after the third failed roll", "M.JAIL.3")
        tx.emit(ev.LeftJail(player=player, how="third_roll"))
        _move_by(tx, player, head.dice)
        return
    player = _before_rolling_in_jail(st, c.player)
    cash = st.player(player).cash
    if cash < fine:
        raise IllegalCommand("M.JAIL.3", f"{player} has ${cash}, the fine is ${fine}")
    tx.transfer(player, None, fine, "jail fine", "M.JAIL.3")
    tx.emit(ev.LeftJail(player=player, how="fine"))  # M.JAIL.4: then rolls as usual, doubles roll again


def use_jail_card(tx: Tx, c: cmd.UseJailCard) -> None:
    st = tx.state
    head = st.head
    if isinstance(head, JailFine):
        player = require_player(st, c.player, head.player, "M.JAIL.3", "the jail card")
        cards.use_jail_card(tx, c, player)
        tx.pop()
        tx.emit(ev.LeftJail(player=player, how="card"))
        _move_by(tx, player, head.dice)
        return
    player = _before_rolling_in_jail(st, c.player)
    cards.use_jail_card(tx, c, player)
    tx.emit(ev.LeftJail(player=player, how="card"))


def _before_rolling_in_jail(st: GameState, name: str | None) -> str:
    blocked(st)
    player = require_player(st, name, st.turn.player, "M.JAIL.3", "leaving jail")
    if not st.player(player).in_jail:
        raise IllegalCommand("M.JAIL.3", f"{player} is not in jail")
    if st.turn.phase != "pre_roll" or st.turn.rolled:
        raise IllegalCommand("M.JAIL.3", f"{player} may pay or use a card only before rolling")
    return player


# ---- other turn commands ----


def end_turn(tx: Tx, c: cmd.EndTurn) -> None:
    st = tx.state
    blocked(st)
    player = require_player(st, c.player, st.turn.player, "M.DICE.3", "ending the turn")
    if st.turn.phase == "start_order":
        raise IllegalCommand("M.SETUP.2", "the start order is still being rolled")
    if st.turn.phase == "pre_roll":
        if st.turn.again:
            raise IllegalCommand("M.DICE.3", f"{player} threw doubles and rolls again")
        raise IllegalCommand("M.DICE.1", f"{player} has not thrown the dice yet")
    _end(tx)


def _end(tx: Tx) -> None:
    st = tx.state
    nxt = st.next_player_after(st.turn.player)
    tx.emit(ev.TurnSet(turn=Turn(player=nxt, phase="pre_roll", number=st.turn.number + 1)))


def void_throw(tx: Tx, c: cmd.VoidThrow) -> None:
    st = tx.state
    if st.turn.phase == "game_over":
        raise IllegalCommand("M.END.1", "the game is over")
    if c.player is not None and not st.has_player(c.player):
        raise IllegalCommand("M.DICE.1", f"unknown player {c.player!r}")
    # M.DICE.1-2: the throw does not count; both dice are thrown again. Nothing else changes.
    tx.emit(ev.ThrowVoided(player=c.player or st.turn.player, reason=c.reason))
