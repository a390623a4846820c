"""The `tableside` command: a thin argparse front over the packages.

Each subcommand lives in `tableside.commands.<name>` and registers itself; heavy imports (OpenCV, Flask)
happen inside the subcommand's handler so `tableside scenario` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

# Order is the order shown in --help.
COMMANDS: tuple[str, ...] = (
    "run", "scenario", "simulate", "read", "calibrate", "calibration_sheet", "export", "import_", "event",
)


class UsageError(Exception):
    """Unusable input given on the command line (missing file, bad JSON, bad option value)."""


def data_dir(given: str | None) -> Path:
    """`--data-dir`, else the user's data directory: where the default SQLite store and roll pictures go."""
    if given:
        return Path(given)
    import platformdirs

    return Path(platformdirs.user_data_dir("tableside"))


def store_url(db: str | None, data: str | None, *, create: bool) -> str:
    """The database URL a command works on: `--db`, else SQLite in the data directory. Commands that only read
    or change what is stored (`create` False) refuse a store that is not there, rather than make an empty one
    where a `--data-dir` was mistyped."""
    if db:
        return db
    path = data_dir(data) / "tableside.db"
    if not create and not path.exists():
        raise UsageError(f"no store at {path} (give --db or --data-dir)")
    return f"sqlite:///{path}"


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
    except BrokenPipeError:
        # The reader went away (`tableside simulate | head`): not an error of the input. Point stdout at
        # devnull so the interpreter's own flush at exit does not complain again; 141 as a shell reports it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (TablesideError, UsageError, ValueError, OSError) as exc:
        # One line that names the problem; tracebacks are for bugs, not for bad input.
        print(f"tableside {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code
