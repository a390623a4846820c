"""Bench: the reader with and without its opt-in quick path (vision/quick.py), uncalibrated, on scenes where a
wrong `ok` is easy: a die partly covered, and the simulated camera's throws read without their calibration.

Usage: .venv/bin/python bench/quick.py [--covered N] [--sim-seeds S]

For each scene both ways read it (expect=2, the shipped models): the full reader alone (`read_dice`'s
default) and the quick path first (`spotter=Spotter.shipped()`). Printed: `ok`s, wrong `ok`s (an `ok` whose
values are not the scene's, or an `ok` for a throw that should be refused), right verdicts, and how many
scenes the quick path itself read. The quick path must add no wrong `ok`; docs/vision.md keeps the figures.
The covered scenes are tests/vision/test_dicenet.py's (read there calibrated); the simulated camera is
hardware/simcam.py's. Uncalibrated, no board is known, so an off-board throw read `ok` with its values is
counted as a wrong `ok` both ways.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np

from tests.vision.render import DieSpec, cover, render
from tests.vision.simthrows import sim_throw
from vision import Verdict, read_dice
from vision.dicenet import DiceNet
from vision.quick import quick_dice
from vision.reader import _read_spot
from vision.reading import DiceReading
from vision.spotter import Spotter

MODES = {"full reader": lambda f: read_dice(f, expect=2),
         "quick path first": lambda f: read_dice(f, expect=2, spotter=Spotter.shipped())}


def _line(title: str, rows: dict[str, list[int]], quick: int, n: int) -> None:
    print(f"{title} ({n} scenes; the quick path read {quick}):")
    for mode, (ok, wrong, right) in rows.items():
        print(f"  {mode}: ok {ok}, wrong ok {wrong}, verdict right {right}")


def covered(n: int) -> None:
    rng = np.random.default_rng(0)
    colours = [(245, 245, 245), (40, 140, 40), (40, 40, 190), (120, 150, 200), (40, 40, 40)]
    rows = {m: [0, 0, 0] for m in MODES}
    quick = 0
    for seed in range(n):
        v, w = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        angle, share = float(rng.uniform(0, 90)), float(rng.uniform(0.2, 0.6))
        side, colour = int(rng.integers(0, 4)), colours[int(rng.integers(0, 5))]
        frame = render([DieSpec(v, (220, 200), angle=angle), DieSpec(w, (420, 300), angle=angle + 31)], seed=seed)
        cover(frame, (220, 200), 40.0, share, side, colour)
        quick += quick_dice(frame, DiceNet.shipped(), Spotter.shipped(), 2, None, _read_spot) is not None
        for mode, read in MODES.items():
            r = read(frame)
            _score(rows[mode], r, (v, w), should_ok=True)
    _line("a die partly covered, uncalibrated", rows, quick, n)


def _score(row: list[int], r: DiceReading, values: tuple[int | None, ...], should_ok: bool) -> None:
    ok = r.verdict is Verdict.OK
    same = sorted(r.values, key=str) == sorted(values, key=str)
    row[0] += ok
    row[1] += ok and (not should_ok or not same)
    row[2] += (ok and same) if should_ok else not ok


def simulated(seeds: int) -> None:
    for kind in ("ok", "off_board", "cocked", "stacked"):
        rows = {m: [0, 0, 0] for m in MODES}
        quick = 0
        for seed in range(seeds):
            frame, _, truth = sim_throw(kind, seed)
            quick += quick_dice(frame, DiceNet.shipped(), Spotter.shipped(), 2, None, _read_spot) is not None
            for mode, read in MODES.items():
                _score(rows[mode], read(frame), truth.values, truth.verdict is Verdict.OK)
        _line(f"simulated camera, {kind} throws, uncalibrated", rows, quick, seeds)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--covered", type=int, default=300)
    ap.add_argument("--sim-seeds", type=int, default=40)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    covered(args.covered)
    simulated(args.sim_seeds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
