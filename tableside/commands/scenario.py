"""`tableside scenario FILE.json`: run a scripted game and print the final state as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tableside.cli import UsageError


def register(sub: Any) -> None:
    p = sub.add_parser("scenario", help="run a scripted game (commands, expectations) and print the final state")
    p.add_argument("file", type=Path, help="scenario JSON file")
    p.add_argument("--log", action="store_true", help="also print the events in words on stderr")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from engine import events as ev
    from engine.describe import describe
    from engine.scenario import run

    try:
        data = json.loads(args.file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{args.file}: not valid JSON ({exc})") from exc
    except OSError as exc:
        raise UsageError(f"cannot read scenario {args.file}: {exc.strerror or exc}") from exc
    result = run(data)
    if args.log:
        for e in result.events:
            line = describe(ev.event_from_json(e))
            if line:
                print(line, file=sys.stderr)
    print(json.dumps(result.state.to_json(), indent=2, ensure_ascii=False))
    return 0
