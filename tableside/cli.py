"""The `tableside` command: a thin argparse front over the packages.

Each subcommand lives in `tableside.commands.<name>` and registers itself; heavy imports (OpenCV, Flask)
happen inside the subcommand's handler so `tableside scenario` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Order is the order shown in --help.
COMMANDS: tuple[str, ...] = (
    "run", "scenario", "simulate", "read", "calibrate", "calibration_sheet", "export", "import_", "event",
)


class UsageError(Exception):
    """Unusable input given on the command line (missing file, bad JSON, bad option value)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tableside", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tableside.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from engine.errors import TablesideError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except (TablesideError, UsageError, ValueError, OSError) as exc:
        # One line that names the problem; tracebacks are for bugs, not for bad input.
        print(f"tableside {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code
