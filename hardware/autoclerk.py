"""The automatic clerk: what a demo table decides when the game waits on something the camera cannot see,
and the scripted games of the crash test and the hall bench; and the engine command a camera's throw becomes."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import engine
from engine.board import DEEDS

# What the automatic clerk does when the game waits on a decision, in order of preference. Rolls are the
# camera's job and are never chosen here.
_AUTO_ORDER = ("pay_debt", "draw_card", "pay_jail_fine", "use_jail_card", "choose_tax", "pass_bid",
               "pass_build", "place_building", "mortgage", "sell_building", "declare_bankruptcy")
AUTO_RESERVE = 150


def auto_decision(state: engine.GameState) -> dict[str, Any] | None:
    """The command a simple automatic clerk gives when the game waits on something other than dice, or
    None when a roll is what the game waits for (or the game is over). Buys while a reserve is kept;
    passes in auctions and build rounds; raises cash by mortgaging, then selling, then bankruptcy.
    Built on `engine.legal_commands`, so it offers only what the rules allow."""
    if state.turn.phase == "game_over":
        return None
    legal = engine.legal_commands(state)
    kinds = {c.type for c in legal}
    if "roll" in kinds:
        return None
    head = state.head
    if "buy" in kinds and head is not None:
        deed = getattr(head, "deed", None)
        price = DEEDS[deed].price if deed in DEEDS else 0
        if state.player(getattr(head, "player", state.turn.player)).cash - price >= AUTO_RESERVE:
            return {"type": "buy"}
    if "decline" in kinds:
        return {"type": "decline"}
    for kind in _AUTO_ORDER:
        for c in legal:
            if c.type == kind:
                if kind == "choose_tax":
                    return {"type": "choose_tax", "option": "flat"}
                return c.to_json()
    return legal[0].to_json() if legal else None


def scripted_command(state: engine.GameState, seed: int) -> dict[str, Any] | None:
    """A deterministic game: the automatic clerk's decision, else a roll whose dice depend only on the
    seed and how many commands the game has accepted, so a game replayed after any crash is the same."""
    decision = auto_decision(state)
    if decision is not None or state.turn.phase == "game_over":
        return decision
    rng = random.Random(seed * 1_000_003 + state.commands)
    return {"type": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]}


def throw_command(verdict: str, reason: str, values: Sequence[Any]) -> tuple[dict[str, Any], bool]:
    """The engine command for a throw the camera read, and whether it is a real roll. Only an `ok` reading
    of exactly two readable dice is a roll; anything else is `void_throw` (M.DICE.1-2: recorded, changes
    nothing, both dice are thrown again)."""
    ok = verdict == "ok" and len(values) == 2 and all(isinstance(v, int) and 1 <= v <= 6 for v in values)
    if ok:
        return {"type": "roll", "dice": list(values)}, True
    why = reason or ("wrong number of dice" if verdict == "ok" else verdict)
    return {"type": "void_throw", "reason": f"{verdict}: {why}"}, False
