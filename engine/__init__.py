"""Pure Monopoly rules: `apply(state, command) -> events`, `evolve(state, event)`, `fold(events)`.

Imports nothing of Tableside's other packages and does no I/O.
"""

from engine.commands import Command, parse_command
from engine.errors import IllegalCommand, InvalidCommand, TablesideError
from engine.events import Event, event_from_json
from engine.evolve import evolve, fold
from engine.game import apply, legal_commands, new_game, start, step
from engine.rulesets import RULESETS, Options, resolve
from engine.state import GameState

__all__ = [
    "RULESETS",
    "Command",
    "Event",
    "GameState",
    "IllegalCommand",
    "InvalidCommand",
    "Options",
    "TablesideError",
    "apply",
    "event_from_json",
    "evolve",
    "fold",
    "legal_commands",
    "new_game",
    "parse_command",
    "resolve",
    "start",
    "step",
]
