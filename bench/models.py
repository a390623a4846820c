"""The benches' `--models DIR`: read with a retrained set of dice nets (vision.dicenet.use_models) instead of
vision/models, to score it before it is shipped."""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.dicenet import use_models


def add_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--models", type=Path, default=None,
                    help="the dice nets in this folder instead of vision/models (a retrained set, not yet shipped)")


def apply_option(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Switch to the folder given, if any; a folder without the whole set is a usage error."""
    if args.models is None:
        return
    try:
        use_models(args.models)
    except FileNotFoundError as e:
        ap.error(str(e))
    print(f"dice nets from {args.models} (not vision/models)")
