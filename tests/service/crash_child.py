"""The crash test's child: plays a scripted game through `TableService` on an SQLite file until killed.

    python -m tests.service.crash_child DB_PATH SEED MAX_COMMANDS

On start it prints `ready <seq> <state hash>` (the state it folded from the log), then one line with the
stored seq after every command it committed. Every decision is a function of the folded state alone
(`next_action`), so the game after any number of kills and restarts is the same game.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import engine
from hardware.autoclerk import scripted_command

PLAYERS = ("Aiko", "Ben", "Chie", "Dan")
TABLE = "crash"


def state_hash(state: engine.GameState) -> str:
    return hashlib.sha256(json.dumps(state.to_json(), sort_keys=True).encode()).hexdigest()[:16]


def next_action(state: engine.GameState, seed: int) -> tuple[str, dict[str, Any]]:
    """("submit", command) for the clerk's path, ("throw", reading) for the camera's, ("done", {})."""
    command = scripted_command(state, seed)
    if command is None:
        return "done", {}
    if command["type"] != "roll":
        return "submit", command
    k = state.commands
    a, b = command["dice"]
    if k % 7 == 3:  # a die off the board: a void throw through the camera path, then the real one
        return "throw", {"verdict": "reroll", "reason": "off the board",
                         "dice": [{"value": a, "on_board": True}, {"value": b, "on_board": False}]}
    if k % 3 == 0:
        return "throw", {"verdict": "ok", "reason": "", "dice": [{"value": a}, {"value": b}]}
    return "submit", command


def main(argv: list[str]) -> int:
    from hardware import store
    from hardware.service import TableService

    db_path, seed, max_commands = argv[0], int(argv[1]), int(argv[2])
    # The parent ran the migrations once; skipping Alembic here keeps each restart short.
    db = store.make_engine(store.sqlite_url(db_path))
    svc = TableService(db, table_id=TABLE, players=PLAYERS, seed=seed, clerk_pin="000000")
    out = sys.stdout
    out.write(f"ready {svc.seq} {state_hash(svc.state())}\n")
    out.flush()
    while svc.state().commands < max_commands:
        kind, arg = next_action(svc.state(), seed)
        if kind == "done":
            break
        if kind == "throw":
            svc.record_throw(verdict=arg["verdict"], reason=arg["reason"], dice=arg["dice"])
        else:
            svc.submit(arg, source="clerk")
        # Acknowledged only after the commit returned: the parent holds us to it.
        out.write(f"{svc.seq}\n")
        out.flush()
    out.write("done\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
