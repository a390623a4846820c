"""`tableside simulate --games N --seed S`: Monte Carlo landing frequencies through the real engine,
printed beside the exact Markov chain."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("simulate", help="Monte Carlo landing frequencies vs the exact Markov chain")
    p.add_argument("--games", type=int, default=200, help="games per jail strategy (default 200)")
    p.add_argument("--seed", type=int, default=2006, help="seed of the run's one random generator")
    p.add_argument("--turns", type=int, default=400, help="turns per game (default 400)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--jail", choices=("pay", "stay", "both"), default="both",
                   help="jail strategy: pay at once, stay and roll for doubles, or both")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from engine.markov import JAIL, landing_frequencies
    from engine.simulate import play

    if args.games < 1 or args.turns < 1:
        raise ValueError("--games and --turns must be at least 1")
    strategies = ("pay", "stay") if args.jail == "both" else (args.jail,)
    report: dict[str, Any] = {}
    for strategy in strategies:
        t0 = time.perf_counter()
        freq = play(args.games, args.seed, strategy, players=args.players, turns_per_game=args.turns)
        elapsed = time.perf_counter() - t0
        exact = landing_frequencies(strategy)
        rows = freq.table()
        report[strategy] = {
            "rolls": freq.rolls,
            "games": freq.games,
            "seconds": round(elapsed, 2),
            "squares": [
                {"square": name, "simulated": round(share * 100, 3), "exact": round(exact[i] * 100, 3),
                 "diff_pp": round((share - exact[i]) * 100, 3)}
                for i, (name, share) in enumerate(rows)
            ],
        }
        if not args.json:
            print(f"jail strategy '{strategy}': {freq.rolls} throws in {freq.games} games, {elapsed:.1f} s")
            print(f"  {'square':<24}{'simulated %':>12}{'exact %':>10}{'diff pp':>9}")
            worst = max(abs(r["diff_pp"]) for r in report[strategy]["squares"])
            for i in (JAIL, 24, 0, 10, 5, 39):
                r = report[strategy]["squares"][i]
                print(f"  {r['square']:<24}{r['simulated']:>12.2f}{r['exact']:>10.2f}{r['diff_pp']:>+9.3f}")
            print(f"  largest difference over all 41 squares: {worst:.3f} pp")
    if args.json:
        print(json.dumps(report, indent=2))
    return 0
