"""Events in words, for logs and the demo (English; the web layer adds Japanese)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from engine import events as ev
from engine.board import CARD_EDITIONS, DEEDS, GROUPS, SQUARES


def _deed(deed_id: str | None) -> str:
    return DEEDS[deed_id].name if deed_id in DEEDS else str(deed_id)


def _card(key: str) -> str:
    """`Chance: Advance to Go (Collect $200)` for `chance:advance_go`; the key itself for one no edition has."""
    deck, _, cid = key.partition(":")
    for decks in CARD_EDITIONS.values():
        for c in decks.get(deck, ()):
            if c.id == cid:
                return f"{deck.replace('_', ' ').title()}: {c.text}"
    return key


# Why money moved, as the engine writes it (the reasons given to engine/tx.py's transfer and charge): each kind's
# key, its pattern (named groups: a deed id, a card key, a deed or colour group, a player, a number) and its
# words in English. The web's phrasebook words the same keys in Japanese (web/i18n.py MONEY_JA), and the pages
# match the same patterns (web/static/common.js moneyReason), so a deed or card is named in the reader's
# language, never by its id. First match wins. tests/engine/test_describe.py plays games and checks that every
# reason the engine wrote has a pattern here.
MONEY_REASONS: Final[tuple[tuple[str, str, str], ...]] = (
    ("salary", r"salary", "salary"),
    ("bought", r"bought (?P<deed>\w+)", "bought {deed}"),
    ("rent_dice", r"rent for (?P<deed>\w+) \((?P<n>\d+)x dice\)", "rent for {deed}, {n}x the dice"),
    ("rent", r"rent for (?P<deed>\w+)", "rent for {deed}"),
    ("auction", r"auction of (?P<deed>\w+)", "{deed} won at auction"),
    ("income_tax_flat", r"income tax \(flat\)", "income tax, the flat amount"),
    ("income_tax_percent", r"income tax \(percent\)", "income tax, a share of assets"),
    ("income_tax", r"income tax", "income tax"),
    ("luxury_tax", r"luxury tax", "luxury tax"),
    ("card_repairs", r"card (?P<card>\w+:\w+) \((?P<houses>\d+) houses, (?P<hotels>\d+) hotels\)",
     "{card} ({houses} houses, {hotels} hotels)"),
    ("card", r"card (?P<card>\w+:\w+)", "{card}"),
    ("mortgage_fee", r"10% on mortgaged (?P<deed>\w+)", "10% on mortgaged {deed}"),
    ("mortgaged", r"mortgaged (?P<deed>\w+)", "mortgaged {deed}"),
    ("unmortgaged", r"lifted the mortgage on (?P<deed>\w+)", "lifted the mortgage on {deed}"),
    ("hotel_built", r"hotel on (?P<deed>\w+)", "a hotel on {deed}"),
    ("houses_built", r"(?P<n>\d+) house\(s\) on (?P<deed>\w+)", "{n} house(s) on {deed}"),
    ("buildings_sold", r"buildings on (?P<where>\w+) sold to the bank", "buildings on {where} sold to the bank"),
    ("trade", r"trade with (?P<player>.+)", "trade with {player}"),
    ("jail_fine", r"jail fine", "jail fine"),
    ("jail_third", r"jail fee after the third failed roll", "jail fine after the third failed roll"),
    ("jail_fee_taken_over", r"jail fee of (?P<player>.+) taken over", "{player}'s jail fine taken over"),
    ("bankruptcy", r"bankruptcy", "bankruptcy"),
    ("rescue_void", r"rescue void", "a failed rescue's deals undone"),
)
_MONEY: Final = tuple((key, re.compile(pattern)) for key, pattern, _ in MONEY_REASONS)
_MONEY_WORDS: Final = {key: words for key, _, words in MONEY_REASONS}


def money_reason(reason: str) -> tuple[str, dict[str, str]] | None:
    """The kind of a money reason and its named parts (`("bought", {"deed": "park_place"})`); None if unknown."""
    for key, pattern in _MONEY:
        m = pattern.fullmatch(reason)
        if m:
            return key, {k: v for k, v in m.groupdict().items() if v is not None}
    return None


def _named(field: str, value: str) -> str:
    if field == "card":
        return _card(value)
    if field in ("deed", "where") and value in DEEDS:
        return _deed(value)
    if field == "where" and value in GROUPS:
        return value.replace("_", " ")  # a colour group: "dark blue"
    return value


def _jailed(reason: str) -> str:
    """Why a player went to jail (engine/tx.py send_to_jail): the square, third doubles, or a card, by its name."""
    kind, _, key = reason.partition(" ")
    return _card(key) if kind == "card" and key else reason.replace("_", " ")


# The fields a referee may set (engine/game.py _validate_referee), in words; the web's Japanese in web/i18n.py
# REFEREE_FIELDS_JA.
_FIELDS: Final = {"cash": "cash", "position": "square", "in_jail": "in jail", "jail_turns": "turns in jail",
                  "jail_cards": "Get Out of Jail Free cards", "owner": "owner", "mortgaged": "mortgaged",
                  "houses": "houses", "hotel": "hotel"}


def _set(path: str, value: Any) -> str:
    """One referee change in words: `Baltic Avenue's houses = 1`, `Ann's cash = $1500`, `turn = Bob`."""
    parts = path.split(".")
    if path == "turn.player":
        return f"turn = {value}"
    if len(parts) != 3:
        return f"{path} = {value}"
    whose = _deed(parts[1]) if parts[0] == "deeds" else parts[1]
    if parts[2] == "cash":
        shown = f"${value}"
    elif parts[2] == "position" and isinstance(value, int) and 0 <= value < len(SQUARES):
        shown = SQUARES[value].name
    elif parts[2] == "owner":
        shown = _who(value)
    elif parts[2] == "jail_cards" and isinstance(value, list):
        shown = ", ".join(str(k).partition(":")[0].replace("_", " ").title() for k in value) or "none"
    elif isinstance(value, bool):
        shown = "yes" if value else "no"
    else:
        shown = str(value)
    return f"{whose}'s {_FIELDS.get(parts[2], parts[2])} = {shown}"


def _money(reason: str) -> str:
    """A money reason in English words, deeds and cards by name; an unknown one as written."""
    found = money_reason(reason)
    if found is None:
        return reason
    key, parts = found
    return _MONEY_WORDS[key].format(**{k: _named(k, v) for k, v in parts.items()})


def _who(name: str | None, first: bool = False) -> str:
    """A party by name; the bank where there is none (`first`: it opens the line, so capitalised)."""
    if name is None:
        return "The bank" if first else "the bank"
    return name


_TEXT: dict[type[ev.Event], Callable[[Any], str]] = {
    ev.GameStarted: lambda e: f"Game started: {', '.join(e.players)} ({e.options.get('ruleset')})",
    ev.DiceRolled: lambda e: f"{e.player} rolled {e.dice[0]}+{e.dice[1]}"
    + (" (doubles)" if e.dice[0] == e.dice[1] else "")
    + ("" if e.purpose == "move" else f" [{e.purpose.replace('_', ' ')}]"),
    ev.ThrowVoided: lambda e: f"Throw void ({e.reason}): roll both dice again",
    ev.Moved: lambda e: f"{e.player} moved to {SQUARES[e.to].name}",
    ev.CashMoved: lambda e: f"{_who(e.payer, first=True)} paid {_who(e.payee)} ${e.amount} ({_money(e.reason)})",
    ev.DeedTransferred: lambda e: f"{_deed(e.deed)} -> {_who(e.owner)} ({e.reason})",
    ev.DeedMortgaged: lambda e: f"{_deed(e.deed)} {'mortgaged' if e.mortgaged else 'mortgage lifted'}",
    ev.BuildingsSet: lambda e: f"{_deed(e.deed)}: {'hotel' if e.hotel else f'{e.houses} houses'}",
    ev.CardDrawn: lambda e: f"{e.player} drew {_card(e.card)}" + (" (kept)" if e.kept else ""),
    ev.JailCardReturned: lambda e: f"{e.player} used {_card(e.card)}",
    ev.JailCardGiven: lambda e: f"{e.giver} gave {_card(e.card)} to {e.receiver}",
    ev.SentToJail: lambda e: f"{e.player} sent to jail ({_jailed(e.reason)})",
    ev.LeftJail: lambda e: f"{e.player} left jail ({e.how.replace('_', ' ')})",
    ev.JailRollFailed: lambda e: f"{e.player} stays in jail",
    ev.StartOrderSet: lambda e: f"Start order: {', '.join(e.order)}",
    ev.PlayerBankrupt: lambda e: f"{e.player} is bankrupt to {_who(e.creditor)}",
    ev.GameEnded: lambda e: f"Game over ({e.reason}): " + ", ".join(f"{i + 1}. {n}" for i, n in enumerate(e.ranking)),
    ev.RefereeAdjusted: lambda e: f"Referee set {', '.join(_set(k, v) for k, v in e.changes.items())}",
    ev.Undone: lambda e: "Last command undone",
    ev.Traded: lambda e: f"Trade ({e.context.replace('_', ' ')}): {e.giver} gives {_side(e.give)}, "
    f"{e.receiver} gives {_side(e.get)}",  # M.TRADE.6: announced to everyone
    ev.BuildDeclared: lambda e: f"{e.player}: {e.note} "
    + ("hotel" if e.hotel else f"{abs(e.count)} house(s)") + (f" on {_deed(e.deed)}" if e.deed else ""),
    ev.EndSignalled: lambda e: f"End signal: the game ends after turn {e.last_turn}",
}


def _side(side: dict[str, Any]) -> str:
    parts = [f"${side['cash']}"] if side.get("cash") else []
    parts += [_deed(d) for d in side.get("deeds", [])]
    parts += ["Get Out of Jail Free" for _ in side.get("jail_cards", [])]
    return ", ".join(parts) or "nothing"


def describe(event: ev.Event) -> str | None:
    """One line for a player-visible event; None for bookkeeping events (turn, pending, command)."""
    fn = _TEXT.get(type(event))
    return fn(event) if fn else None
