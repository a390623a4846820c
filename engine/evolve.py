"""`evolve(state, event) -> state`: mechanical, no rule decisions (those were made in `apply`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine import events as ev
from engine.board import BOARD_SIZE, JAIL_INDEX
from engine.errors import InvalidCommand
from engine.rulesets import resolve
from engine.state import GameState, Player, Turn, fast_replace, initial_deeds


def _started(state: GameState | None, e: ev.GameStarted) -> GameState:
    opts = dict(e.options)
    ruleset = opts.pop("ruleset", "jma-2006")
    options = resolve(ruleset, opts)
    first = e.players[0]
    phase = "start_order" if options.roll_off else "pre_roll"
    return GameState(
        options=options,
        players=tuple(Player(name=n, cash=options.starting_cash) for n in e.players),
        deeds=initial_deeds(),
        decks={k: tuple(v) for k, v in e.decks.items()},
        turn=Turn(player=first, phase=phase),
        bank_houses=options.houses,
        bank_hotels=options.hotels,
        seed=e.seed,
    )


def _command(state: GameState, e: ev.CommandAccepted) -> GameState:
    if e.command.get("type") == "undo":
        return fast_replace(state, commands=state.commands + 1)
    return fast_replace(state, commands=state.commands + 1, previous=state)


def _undone(state: GameState, e: ev.Undone) -> GameState:
    if state.previous is None:
        raise InvalidCommand("undo event with nothing to undo")
    return fast_replace(state.previous, commands=state.commands)


def _dice(state: GameState, e: ev.DiceRolled) -> GameState:
    return state


def _voided(state: GameState, e: ev.ThrowVoided) -> GameState:
    return state


def _turn(state: GameState, e: ev.TurnSet) -> GameState:
    return fast_replace(state, turn=e.turn)


def _pending(state: GameState, e: ev.PendingSet) -> GameState:
    return fast_replace(state, pending=e.pending)


def _moved(state: GameState, e: ev.Moved) -> GameState:
    return state.with_player(e.player, position=e.to % BOARD_SIZE)


def _cash(state: GameState, e: ev.CashMoved) -> GameState:
    issued = state.bank_issued
    if e.payer is None:
        issued += e.amount
    else:
        state = state.with_player(e.payer, cash=state.player(e.payer).cash - e.amount)
    if e.payee is None:
        issued -= e.amount
    else:
        state = state.with_player(e.payee, cash=state.player(e.payee).cash + e.amount)
    return fast_replace(state, bank_issued=issued)


def _deed(state: GameState, e: ev.DeedTransferred) -> GameState:
    return state.with_deed(e.deed, owner=e.owner)


def _mortgage(state: GameState, e: ev.DeedMortgaged) -> GameState:
    return state.with_deed(e.deed, mortgaged=e.mortgaged)


def _buildings(state: GameState, e: ev.BuildingsSet) -> GameState:
    old = state.deeds[e.deed]
    # A hotel stands on 4 houses' worth of land: building it returns the 4 houses (M.BUILD.3).
    houses_delta = e.houses - old.houses
    hotels_delta = int(e.hotel) - int(old.hotel)
    state = fast_replace(
        state,
        bank_houses=state.bank_houses - houses_delta,
        bank_hotels=state.bank_hotels - hotels_delta,
    )
    return state.with_deed(e.deed, houses=e.houses, hotel=e.hotel)


def _remove_card(decks: dict[str, tuple[str, ...]], card: str) -> None:
    deck = card.partition(":")[0]
    decks[deck] = tuple(c for c in decks[deck] if c != card)


def _card_drawn(state: GameState, e: ev.CardDrawn) -> GameState:
    decks = dict(state.decks)
    _remove_card(decks, e.card)
    if e.kept:
        p = state.player(e.player)
        state = state.with_player(e.player, jail_cards=(*p.jail_cards, e.card))
    else:
        deck = e.card.partition(":")[0]
        decks[deck] = (*decks[deck], e.card)  # M.CARD.1: to the bottom
    return fast_replace(state, decks=decks)


def _jail_card_returned(state: GameState, e: ev.JailCardReturned) -> GameState:
    p = state.player(e.player)
    cards = list(p.jail_cards)
    cards.remove(e.card)
    decks = dict(state.decks)
    deck = e.card.partition(":")[0]
    decks[deck] = (*decks[deck], e.card)  # M.CARD.2: back to the bottom of its deck
    return fast_replace(state.with_player(e.player, jail_cards=tuple(cards)), decks=decks)


def _jail_card_given(state: GameState, e: ev.JailCardGiven) -> GameState:
    giver = state.player(e.giver)
    cards = list(giver.jail_cards)
    cards.remove(e.card)
    state = state.with_player(e.giver, jail_cards=tuple(cards))
    receiver = state.player(e.receiver)
    return state.with_player(e.receiver, jail_cards=(*receiver.jail_cards, e.card))


def _sent_to_jail(state: GameState, e: ev.SentToJail) -> GameState:
    return state.with_player(e.player, position=JAIL_INDEX, in_jail=True, jail_turns=0)


def _left_jail(state: GameState, e: ev.LeftJail) -> GameState:
    return state.with_player(e.player, in_jail=False, jail_turns=0)


def _jail_failed(state: GameState, e: ev.JailRollFailed) -> GameState:
    return state.with_player(e.player, jail_turns=state.player(e.player).jail_turns + 1)


def _start_order(state: GameState, e: ev.StartOrderSet) -> GameState:
    by_name = {p.name: p for p in state.players}
    return fast_replace(state, players=tuple(by_name[n] for n in e.order))


def _bankrupt(state: GameState, e: ev.PlayerBankrupt) -> GameState:
    order = 1 + sum(1 for p in state.players if p.bankrupt)
    return state.with_player(
        e.player, bankrupt=True, out_order=order, in_jail=False, jail_turns=0, out_batch=e.batch, out_cash=e.cash_at
    )


def _ended(state: GameState, e: ev.GameEnded) -> GameState:
    return fast_replace(
        state, ranking=e.ranking, turn=fast_replace(state.turn, phase="game_over"), pending=(), winner=e.winner
    )


def _traded(state: GameState, e: ev.Traded) -> GameState:
    return fast_replace(state, last_trade=(e.giver, e.receiver, e.give, e.get, e.turn_number))


def _build_declared(state: GameState, e: ev.BuildDeclared) -> GameState:
    return state


def _end_signalled(state: GameState, e: ev.EndSignalled) -> GameState:
    return fast_replace(state, ending=(e.last_turn, e.play_doubles))


def _referee(state: GameState, e: ev.RefereeAdjusted) -> GameState:
    for path, value in e.changes.items():
        state = _set_path(state, path, value)
    return state


def _set_path(state: GameState, path: str, value: Any) -> GameState:
    parts = path.split(".")
    if parts[0] == "players" and len(parts) == 3:
        name, attr = parts[1], parts[2]
        if attr == "cash":
            # The bank is the other side of any cash a referee adds or removes: conservation holds.
            delta = int(value) - state.player(name).cash
            state = fast_replace(state, bank_issued=state.bank_issued + delta)
        if attr == "jail_cards":
            # Cards keep their count: the ones handed over leave their deck, the ones taken away
            # go back to the bottom of it (M.CARD.2).
            value = tuple(value)
            old = state.player(name).jail_cards
            decks = dict(state.decks)
            for key in old:
                if key not in value:
                    deck = key.partition(":")[0]
                    decks[deck] = (*decks[deck], key)
            for key in value:
                _remove_card(decks, key)
            state = fast_replace(state, decks=decks)
        return state.with_player(name, **{attr: value})
    if parts[0] == "deeds" and len(parts) == 3:
        deed, attr = parts[1], parts[2]
        if attr in ("houses", "hotel"):
            d = state.deeds[deed]
            houses = int(value) if attr == "houses" else d.houses
            hotel = bool(value) if attr == "hotel" else d.hotel
            return _buildings(state, ev.BuildingsSet(deed=deed, houses=houses, hotel=hotel))
        return state.with_deed(deed, **{attr: value})
    if path == "turn.player":
        # Handing the turn to someone starts that player's turn afresh.
        return fast_replace(state, turn=Turn(player=value, phase="pre_roll", number=state.turn.number))
    raise InvalidCommand(f"referee change to unknown path {path!r}")


_HANDLERS: dict[type[ev.Event], Callable[[Any, Any], GameState]] = {
    ev.CommandAccepted: _command,
    ev.Undone: _undone,
    ev.DiceRolled: _dice,
    ev.ThrowVoided: _voided,
    ev.TurnSet: _turn,
    ev.PendingSet: _pending,
    ev.Moved: _moved,
    ev.CashMoved: _cash,
    ev.DeedTransferred: _deed,
    ev.DeedMortgaged: _mortgage,
    ev.BuildingsSet: _buildings,
    ev.CardDrawn: _card_drawn,
    ev.JailCardReturned: _jail_card_returned,
    ev.JailCardGiven: _jail_card_given,
    ev.SentToJail: _sent_to_jail,
    ev.LeftJail: _left_jail,
    ev.JailRollFailed: _jail_failed,
    ev.StartOrderSet: _start_order,
    ev.PlayerBankrupt: _bankrupt,
    ev.GameEnded: _ended,
    ev.RefereeAdjusted: _referee,
    ev.Traded: _traded,
    ev.BuildDeclared: _build_declared,
    ev.EndSignalled: _end_signalled,
}


def evolve(state: GameState | None, event: ev.Event) -> GameState:
    """The state after `event`. `state` is None only before `GameStarted`."""
    if isinstance(event, ev.GameStarted):
        return fast_replace(_started(state, event), seq=1)
    if state is None:
        raise InvalidCommand(f"event {event.type!r} before game_started")
    new = _HANDLERS[type(event)](state, event)
    return fast_replace(new, seq=state.seq + 1)


def fold(events: Iterable[ev.Event]) -> GameState:
    """The state a log of events leads to."""
    state: GameState | None = None
    for e in events:
        state = evolve(state, e)
    if state is None:
        raise InvalidCommand("an empty event log has no game")
    return state
