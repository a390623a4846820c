"""Events in words, for logs and the demo (English; the web layer adds Japanese)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import events as ev
from engine.board import DEEDS, SQUARES


def _deed(deed_id: str | None) -> str:
    return DEEDS[deed_id].name if deed_id in DEEDS else str(deed_id)


def _who(name: str | None) -> str:
    return "the bank" if name is None else name


_TEXT: dict[type[ev.Event], Callable[[Any], str]] = {
    ev.GameStarted: lambda e: f"Game started: {', '.join(e.players)} ({e.options.get('ruleset')})",
    ev.DiceRolled: lambda e: f"{e.player} rolled {e.dice[0]}+{e.dice[1]}"
    + (" (doubles)" if e.dice[0] == e.dice[1] else "")
    + ("" if e.purpose == "move" else f" [{e.purpose.replace('_', ' ')}]"),
    ev.ThrowVoided: lambda e: f"Throw void ({e.reason}): roll both dice again",
    ev.Moved: lambda e: f"{e.player} moved to {SQUARES[e.to].name}",
    ev.CashMoved: lambda e: f"{_who(e.payer)} paid {_who(e.payee)} ${e.amount} ({e.reason})",
    ev.DeedTransferred: lambda e: f"{_deed(e.deed)} -> {_who(e.owner)} ({e.reason})",
    ev.DeedMortgaged: lambda e: f"{_deed(e.deed)} {'mortgaged' if e.mortgaged else 'mortgage lifted'}",
    ev.BuildingsSet: lambda e: f"{_deed(e.deed)}: {'hotel' if e.hotel else f'{e.houses} houses'}",
    ev.CardDrawn: lambda e: f"{e.player} drew {e.card}" + (" (kept)" if e.kept else ""),
    ev.JailCardReturned: lambda e: f"{e.player} used {e.card}",
    ev.JailCardGiven: lambda e: f"{e.giver} gave {e.card} to {e.receiver}",
    ev.SentToJail: lambda e: f"{e.player} sent to jail ({e.reason.replace('_', ' ')})",
    ev.LeftJail: lambda e: f"{e.player} left jail ({e.how.replace('_', ' ')})",
    ev.JailRollFailed: lambda e: f"{e.player} stays in jail",
    ev.StartOrderSet: lambda e: f"Start order: {', '.join(e.order)}",
    ev.PlayerBankrupt: lambda e: f"{e.player} is bankrupt to {_who(e.creditor)}",
    ev.GameEnded: lambda e: f"Game over ({e.reason}): " + ", ".join(f"{i + 1}. {n}" for i, n in enumerate(e.ranking)),
    ev.RefereeAdjusted: lambda e: f"Referee set {', '.join(f'{k}={v}' for k, v in e.changes.items())}",
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
