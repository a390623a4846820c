"""`tableside run`: the main job. Until the table service lands, it plays a demo game through the
engine with seeded dice and prints it in words."""

from __future__ import annotations

import argparse
import json
import random
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run the table (for now: a demo game printed in words)")
    p.add_argument("--seed", type=int, default=1, help="seed for the demo dice and decks")
    p.add_argument("--players", default="Aiko,Ben,Chie,Dan", help="comma-separated player names")
    p.add_argument("--turns", type=int, default=60, help="turns to play (default 60)")
    p.add_argument("--json", action="store_true", help="print the final state JSON at the end")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from engine.demo import demo_game
    from engine.describe import describe

    names = [n.strip() for n in args.players.split(",") if n.strip()]
    state, events = demo_game(names, seed=args.seed, turns=args.turns, rng=random.Random(args.seed))
    for e in events:
        line = describe(e)
        if line:
            print(line)
    print()
    for p in state.players:
        print(f"{p.name:<8} ${p.cash:>6}  {len(state.owned_by(p.name)):>2} deeds  "
              f"{'bankrupt' if p.bankrupt else ('in jail' if p.in_jail else '')}")
    if args.json:
        print(json.dumps(state.to_json(), indent=2, ensure_ascii=False))
    return 0
