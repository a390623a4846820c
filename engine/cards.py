"""Chance and Community Chest: cycling decks, never reshuffled (M.CARD.1-2), and every card's effect."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import commands as cmd
from engine import events as ev
from engine.board import BOARD_SIZE, CARD_EDITIONS, DECKS, SQUARES, Card, card
from engine.errors import IllegalCommand
from engine.landing import land
from engine.state import CardDraw, Debt, GameState
from engine.tx import Tx


def shuffled_decks(edition: str, rng: random.Random) -> dict[str, tuple[str, ...]]:
    """M.SETUP.3: each deck shuffled once, before play, with the game's own generator."""
    decks: dict[str, tuple[str, ...]] = {}
    for deck in DECKS:
        keys = [c.key for c in CARD_EDITIONS[edition][deck]]
        rng.shuffle(keys)
        decks[deck] = tuple(keys)
    return decks


def _normalise(deck: str, name: str) -> str:
    if ":" in name:
        return name
    return f"{deck}:{name}"


def draw(tx: Tx, c: cmd.DrawCard) -> None:
    head = tx.state.head
    if not isinstance(head, CardDraw):
        raise IllegalCommand("M.CARD.1", "no card is to be drawn now")
    deck = head.deck
    if c.deck is not None and c.deck != deck:
        raise IllegalCommand("M.CARD.1", f"{head.player} draws from {deck}, not {c.deck}")
    cards = tx.state.decks[deck]
    if c.card is None:
        key = cards[0]  # the seeded deck decides
    else:
        key = _normalise(deck, c.card)
        if key.partition(":")[0] != deck:
            raise IllegalCommand("M.CARD.1", f"{key} is not a {deck} card")
        if key not in cards:
            holders = [p.name for p in tx.state.players if key in p.jail_cards]
            if holders:
                raise IllegalCommand("M.CARD.2", f"{key} is held by {holders[0]}, not in the deck")
            raise IllegalCommand("M.CARD.1", f"unknown card {key!r}")
    the_card = card(tx.state.options.edition, key)
    kept = the_card.op == "get_out_of_jail_free"
    tx.emit(ev.CardDrawn(player=head.player, card=key, kept=kept))  # M.CARD.1: shown to everyone
    tx.pop()
    _EFFECTS[the_card.op](tx, head.player, the_card)


# ---- effects ----


def _move_to(tx: Tx, player: str, c: Card) -> None:
    assert c.square is not None
    tx.move_to(player, c.square, "card")
    land(tx, player)


def _move_to_next(tx: Tx, player: str, c: Card) -> None:
    pos = tx.state.player(player).position
    target = next(
        (pos + k) % BOARD_SIZE
        for k in range(1, BOARD_SIZE + 1)
        if SQUARES[(pos + k) % BOARD_SIZE].type == c.kind
    )
    tx.move_to(player, target, "card")
    land(tx, player, card_effect=c.if_owned)


def _move_relative(tx: Tx, player: str, c: Card) -> None:
    pos = tx.state.player(player).position
    tx.move_to(player, (pos + c.spaces) % BOARD_SIZE, "back" if c.spaces < 0 else "card")
    land(tx, player)


def _collect(tx: Tx, player: str, c: Card) -> None:
    tx.transfer(None, player, c.amount, f"card {c.key}", "M.CARD.1")


def _pay(tx: Tx, player: str, c: Card) -> None:
    tx.charge(player, ((None, c.amount),), f"card {c.key}", "M.CARD.1")


def _others_in_turn_order(state: GameState, player: str) -> list[str]:
    names: list[str] = []
    cur = player
    for _ in state.players:
        cur = state.next_player_after(cur)
        if cur == player:
            break
        names.append(cur)
    return names


def _pay_each_player(tx: Tx, player: str, c: Card) -> None:
    # Chairman of the Board: one debt to several creditors; if it ends in bankruptcy nobody is paid (M.BK.4).
    payees = tuple((other, c.amount) for other in _others_in_turn_order(tx.state, player))
    tx.charge(player, payees, f"card {c.key}", "M.CARD.1")


def _collect_from_each(tx: Tx, player: str, c: Card) -> None:
    # Grand Opera / birthday: each other player owes the drawer; short payers are handled in turn order
    # from the drawer (M.BUILD.9).
    short: list[Debt] = []
    for other in _others_in_turn_order(tx.state, player):
        if tx.state.player(other).cash >= c.amount:
            tx.transfer(other, player, c.amount, f"card {c.key}", "M.CARD.1")
        else:
            short.append(Debt(debtor=other, payees=((player, c.amount),), reason=f"card {c.key}", rule="M.CARD.1",
                              batch=tx.state.seq, cash_at=tx.state.player(other).cash))  # M.BK.5
    if short:
        tx.push_front(*short)


def _repairs(tx: Tx, player: str, c: Card) -> None:
    st = tx.state
    houses = sum(st.deeds[d].houses for d in st.owned_by(player))
    hotels = sum(1 for d in st.owned_by(player) if st.deeds[d].hotel)
    amount = houses * c.per_house + hotels * c.per_hotel
    tx.charge(player, ((None, amount),), f"card {c.key} ({houses} houses, {hotels} hotels)", "M.CARD.1")


def _keep(tx: Tx, player: str, c: Card) -> None:
    """M.CARD.2: the Get Out of Jail Free card stays with the player until used or sold."""


def _go_to_jail(tx: Tx, player: str, c: Card) -> None:
    tx.send_to_jail(player, f"card {c.key}")  # M.JAIL.1


_EFFECTS: dict[str, Callable[[Tx, str, Card], None]] = {
    "move_to": _move_to,
    "move_to_next": _move_to_next,
    "move_relative": _move_relative,
    "collect": _collect,
    "pay": _pay,
    "pay_each_player": _pay_each_player,
    "collect_from_each_player": _collect_from_each,
    "repairs": _repairs,
    "get_out_of_jail_free": _keep,
    "go_to_jail": _go_to_jail,
}


def use_jail_card(tx: Tx, c: cmd.UseJailCard, player: str) -> str:
    """Return one of `player`'s GOOJF cards to the bottom of its deck (M.CARD.2); the card used."""
    p = tx.state.player(player)
    cards = [k for k in p.jail_cards if c.deck is None or k.startswith(f"{c.deck}:")]
    if not cards:
        which = f" from {c.deck}" if c.deck else ""
        raise IllegalCommand("M.JAIL.3", f"{player} holds no Get Out of Jail Free card{which}")
    tx.emit(ev.JailCardReturned(player=player, card=cards[0]))
    return cards[0]

