"""Crash safety: a child process plays a scripted game through the table service on an SQLite file and is
killed with SIGKILL at random moments, at least 50 times (TABLESIDE_CRASH_KILLS raises it).

After every kill, from the database alone:
- the events are numbered 1..N without a gap or a repeat (nothing doubled);
- N is at least the last seq the child acknowledged after a commit (nothing acknowledged is lost);
- the events are exactly the first N events of the same game played without crashes, and N falls on a
  command boundary (a command's events are stored all together or not at all);
- every throw (camera) and typed roll (clerk) has its roll row, numbered 1..R without gaps;
- the folded state keeps the bank's invariants (money, houses and hotels conserved, one owner per deed);
and the restarted child reports the state it folded, which must equal the uncrashed game's state after
those N events: the service carries on where it stopped.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import engine
from engine import game as engine_game
from hardware import store
from hardware.autoclerk import throw_command
from tests.service.crash_child import PLAYERS, TABLE, next_action, state_hash

ROOT = Path(__file__).resolve().parents[2]
SEED = 11
KILLS = int(os.environ.get("TABLESIDE_CRASH_KILLS", "50"))
MAX_COMMANDS = 100_000  # never reached: the kills end every run


class Reference:
    """The same game without crashes, computed in memory, extended on demand."""

    def __init__(self) -> None:
        opening = engine.new_game(PLAYERS, "jma-2006", {}, SEED)
        self.state = engine.fold(opening)
        self.payloads = [e.to_json() for e in opening]
        self.hashes = {len(self.payloads): state_hash(self.state)}  # seq at a command boundary -> state
        self.throws_at = {len(self.payloads): 0}  # seq at a boundary -> rolls recorded so far
        self.throws = 0

    def extend_to(self, seq: int) -> None:
        while len(self.payloads) < seq + 1:
            kind, arg = next_action(self.state, SEED)
            assert kind != "done", "the scripted game ended; use a longer game"
            if kind == "throw":
                command, _ = throw_command(arg["verdict"], arg["reason"], [d["value"] for d in arg["dice"]])
            else:
                command = arg
            # Every throw read by the camera and every roll typed by the clerk gets a roll row.
            self.throws += kind == "throw" or command["type"] == "roll"
            events, self.state = engine_game.run(self.state, command)
            self.payloads.extend(e.to_json() for e in events)
            self.hashes[len(self.payloads)] = state_hash(self.state)
            self.throws_at[len(self.payloads)] = self.throws


def check_invariants(state: engine.GameState, start_total: int) -> None:
    assert sum(p.cash for p in state.players) == start_total + state.bank_issued, "money not conserved"
    assert all(p.cash >= 0 for p in state.players)
    houses = sum(d.houses for d in state.deeds.values())
    hotels = sum(int(d.hotel) for d in state.deeds.values())
    assert houses + state.bank_houses == state.options.houses, "houses not conserved"
    assert hotels + state.bank_hotels == state.options.hotels, "hotels not conserved"
    names = {p.name for p in state.players if not p.bankrupt}
    assert all(d.owner is None or d.owner in names for d in state.deeds.values())


def read_log(db_path: Path) -> tuple[list[store.EventRow], list[store.RollRow]]:
    db = store.make_engine(store.sqlite_url(db_path))
    try:
        with store.session_scope(db) as s:
            game = store.current_game(s, table_id=TABLE)
            assert game is not None and game.id is not None
            return store.load_events(s, game_id=game.id), store.list_rolls(s, game_id=game.id)
    finally:
        db.dispose()


@pytest.mark.slow
def test_sigkill_at_random_points_loses_and_doubles_nothing(tmp_path: Path) -> None:
    db_path = tmp_path / "crash.db"
    store.open_store(store.sqlite_url(db_path)).dispose()  # migrations once, as `tableside run` would
    ref = Reference()
    rng = random.Random(2024)
    acknowledged = 0
    stored = 0
    kills = 0
    boundaries_hit = set()
    started = time.monotonic()
    startup: list[float] = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    while kills < KILLS:
        t0 = time.monotonic()
        child = subprocess.Popen([sys.executable, "-m", "tests.service.crash_child", str(db_path), str(SEED),
                                  str(MAX_COMMANDS)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env)
        assert child.stdout is not None
        ready = child.stdout.readline().split()
        startup.append(time.monotonic() - t0)
        assert ready and ready[0] == "ready", (ready, child.stderr.read() if child.stderr else "")
        resumed_seq, resumed_hash = int(ready[1]), ready[2]
        # The restarted service folded exactly what was stored, and that is the uncrashed game's state.
        if kills:
            assert resumed_seq == stored
        ref.extend_to(resumed_seq)
        assert resumed_hash == ref.hashes[resumed_seq], f"state folded at seq {resumed_seq} differs"

        # Kill at a random moment while it writes; now and then at once (during its first commit).
        time.sleep(0 if rng.random() < 0.1 else rng.uniform(0.0, 0.3))
        child.kill()
        out, _ = child.communicate(timeout=30)
        kills += 1
        lines = [ln for ln in out.split() if ln.isdigit()]
        if lines:
            acknowledged = int(lines[-1])

        rows, rolls = read_log(db_path)
        stored = len(rows)
        store.check_sequence(rows)  # 1..N, no gap, no repeat
        assert stored >= acknowledged, f"kill {kills}: acknowledged seq {acknowledged}, stored {stored}"
        ref.extend_to(stored)
        assert stored in ref.hashes, f"kill {kills}: seq {stored} is inside a command: half a command stored"
        assert [r.payload for r in rows] == ref.payloads[:stored], f"kill {kills}: log differs from the game"
        assert [r.n for r in rolls] == list(range(1, len(rolls) + 1))
        assert len(rolls) == ref.throws_at[stored], f"kill {kills}: throws and roll rows disagree"
        assert all(r.first_seq is not None and r.first_seq <= stored for r in rolls)
        state = engine.fold([engine.event_from_json(r.payload) for r in rows])
        assert state_hash(state) == ref.hashes[stored]
        check_invariants(state, start_total=1500 * len(PLAYERS))
        boundaries_hit.add(stored)

    elapsed = time.monotonic() - started
    commands = engine.fold([engine.event_from_json(r.payload) for r in rows]).commands
    print(f"\ncrash test: {kills} SIGKILLs, {stored} events / {commands} commands / {len(rolls)} roll rows "
          f"stored, {len(boundaries_hit)} distinct stop points, child start-up median "
          f"{sorted(startup)[len(startup) // 2]:.2f} s, {elapsed:.1f} s in all")
    assert kills >= 50 or KILLS < 50
    # The kills landed in many different places, not always at start-up.
    assert len(boundaries_hit) >= kills // 2
