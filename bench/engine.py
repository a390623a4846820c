"""Engine speed: turns per second of simulated play on one core.

Rerun: `.venv/bin/python bench/engine.py [--turns N] [--seed S]`

Two workloads through the real engine (`engine.game.run`, every command validated, every event
evolved):
  * walk  - the Monte Carlo walk used by `tableside simulate` (rich bots, cards, jail, doubles);
  * game  - the demo bot's full game (buying, auctions, rent, debts, mortgages), four players.
The peer, measured in the same run, is a bare board walker written for this bench: dice, doubles, third
doubles, Go To Jail and card movement on plain integers, with no bank, no validation and no events. It is
a floor for "just moving the tokens", so the ratio shows what the full rules engine costs on top of it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.demo import demo_game
from engine.simulate import play

CHANCE, CHEST, RAILROADS, UTILITIES = (7, 22, 36), (2, 17, 33), (5, 15, 25, 35), (12, 28)


def bare_walk(turns: int, rng: random.Random) -> int:
    """The peer: token movement only."""
    pos, jail, done = 0, 0, 0
    while done < turns:
        doubles = 0
        while True:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            if jail:
                if a != b and jail < 3:
                    jail += 1
                    break
                jail = 0
            elif a == b:
                doubles += 1
                if doubles == 3:
                    pos, jail = 10, 1
                    break
            pos = (pos + a + b) % 40
            if pos in CHANCE:
                k = rng.randrange(16)
                if k < 5:
                    pos = (0, 24, 11, 39, 5)[k]
                elif k < 7:
                    pos = next(r for r in (*RAILROADS, 45) if r > pos) % 40
                elif k == 7:
                    pos = next(u for u in (*UTILITIES, 52) if u > pos) % 40
                elif k == 8:
                    pos -= 3
                elif k == 9:
                    pos, jail = 10, 1
            elif pos in CHEST:
                k = rng.randrange(16)
                if k == 0:
                    pos = 0
                elif k == 1:
                    pos, jail = 10, 1
            if pos == 30:
                pos, jail = 10, 1
            if jail or a != b:
                break
        done += 1
    return done


def rate(fn: object, turns: int) -> float:
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    return turns / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=2006)
    args = ap.parse_args()
    n = args.turns
    walk = rate(lambda: play(games=max(1, n // 1000), seed=args.seed, turns_per_game=1000), (max(1, n // 1000)) * 1000)
    game_turns = min(n, 4000)
    game = rate(lambda: demo_game(["A", "B", "C", "D"], args.seed, game_turns, random.Random(args.seed)), game_turns)
    peer = rate(lambda: bare_walk(n, random.Random(args.seed)), n)
    print(f"engine walk (tableside simulate): {walk:12,.0f} turns/s")
    print(f"engine full game (demo bot, 4p):  {game:12,.0f} turns/s")
    print(f"peer bare token walker:           {peer:12,.0f} turns/s")
    print(f"ratio engine walk / peer:         {walk / peer:12.3f}")
    print(f"ratio engine game / peer:         {game / peer:12.3f}")
    print(f"rerun: .venv/bin/python bench/engine.py --turns {n} --seed {args.seed}")


if __name__ == "__main__":
    main()
