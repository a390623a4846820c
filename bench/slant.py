"""Bench: photos taken at a slant, read uncalibrated, with the view undone (vision/view.py) and as taken.

Usage: .venv/bin/python bench/slant.py [--every N] [--seeds S] [--no-photos]

Every reader here is ours, uncalibrated (`tableside read` on a photo), once as it reads and once with the view
step off (vision.view.RECTIFY_BELOW = 0: the frame read as taken), on the same frames:

- the Byler photos seen by a phone pitched 35 and 45 degrees towards the table (tests/vision/camera_looks.py
  TILTS: the photo taken for the table's plane; no side faces show), held out, every N-th photo: accuracy
  among accepted dice, coverage (white dice apart), photos `ok` and right, wrong `ok`s, time a photo;
- tables set by hand on the simulated camera (tests/vision/simthrows.py sim_table: real 3D dice, side faces
  and shadows, the printed board), S scenes each: five flat dice at 0, 25, 35 and 45 degrees; two flat and
  three leaning alike (25 degrees); four leaning alike (40 degrees) seen from overhead. Per die: read right,
  read wrong, a leaning die given a value (wrong: it should be refused), and values where no die is;
- rendered dice leaning alike (tests/vision/render.py's squash 0.6-0.8 with a side face, white, black and
  red), pairs and triples along one axis: how many are `ok` (every one is wrong). A view and dice leaning
  alike look the same to the pips; vision/view.py stretches only where three dice or more agree, along the
  frame's vertical.

Measured: docs/vision.md, "Photos taken at a slant".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2

import vision.view
from tests.vision import byler_data as byler
from tests.vision import camera_looks
from tests.vision.render import DieSpec, render
from tests.vision.simthrows import sim_table, trusted_at
from vision import Verdict, read_dice
from vision.reader import MIN_CONFIDENCE
from vision.reading import DiceReading

MODES = ("view undone", "as taken")
LEANING_LOOKS = {"white": ((235, 238, 240), (25, 25, 25)), "black": ((40, 38, 36), (245, 245, 245)),
                 "red": ((40, 40, 170), (245, 245, 245))}


def both(read: Callable[[], DiceReading]) -> dict[str, tuple[DiceReading, float]]:
    """`read()` as the reader reads, and with the view step off; each with its time in seconds."""
    out = {}
    old = vision.view.RECTIFY_BELOW
    for mode, limit in zip(MODES, (old, 0.0), strict=True):
        vision.view.RECTIFY_BELOW = limit
        try:
            t0 = time.perf_counter()
            out[mode] = (read(), time.perf_counter() - t0)
        finally:
            vision.view.RECTIFY_BELOW = old
    return out


def photos(every: int) -> None:
    read = byler.held_out(read_dice)
    for look in camera_looks.TILTS:
        scores = {m: byler.Score() for m in MODES}
        times: dict[str, list[float]] = {m: [] for m in MODES}
        for p in camera_looks.photos(look, every):
            for mode, (r, seconds) in both(partial(read, p)).items():
                times[mode].append(seconds)
                byler.score_photo(p, r, MIN_CONFIDENCE, scores[mode])
        print(f"Byler photos {look}, every {every} ({scores[MODES[0]].images} photos), held out:")
        for mode, s in scores.items():
            o, w = s.overall, s.by_colour["white"]
            print(f"  {mode}: {o.accuracy:.2%} of {o.accepted} accepted right, coverage {o.coverage:.2%} "
                  f"(white {w.coverage:.2%}), {s.images_ok_correct} photos ok and right, {s.images_ok_wrong} "
                  f"wrong ok; median {1000 * statistics.median(times[mode]):.1f} ms a photo")


def tables(seeds: int) -> None:
    cases = [(f"5 flat dice, {t:g} degrees", t, 5, 0, 25.0) for t in (0.0, 25.0, 35.0, 45.0)]
    cases += [(f"2 flat and 3 leaning alike (25 degrees), {t:g} degrees", t, 2, 3, 25.0) for t in (0.0, 35.0)]
    cases += [("4 leaning alike (40 degrees), overhead", 0.0, 0, 4, 40.0)]
    for title, tilt, flat, leaning, lean_deg in cases:
        tally = {m: Counter[str]() for m in MODES}
        for seed in range(seeds):
            frame, truth, size, _ = sim_table(tilt, seed, flat, leaning, lean_deg)
            for mode, (r, _) in both(partial(read_dice, frame, expect=flat + leaning)).items():
                t = tally[mode]
                hits = trusted_at(r, truth, size)
                for (value, _, lean), hit in zip(truth, hits, strict=True):
                    if hit is not None:
                        t["leaning given a value" if lean else "right" if r.dice[hit].value == value else "wrong"] += 1
                used = {hit for hit in hits if hit is not None}
                t["values where no die is"] += sum(1 for i, d in enumerate(r.dice) if i not in used
                                                   and d.value is not None and d.confidence >= MIN_CONFIDENCE)
                t["ok"] += r.verdict is Verdict.OK
        print(f"simulated table, {title} ({seeds} scenes, {seeds * (flat + leaning)} dice):")
        for mode, t in tally.items():
            print(f"  {mode}: " + ", ".join(f"{k} {t[k]}" for k in ("right", "wrong", "leaning given a value",
                                                                 "values where no die is", "ok")))


def leaning_alike() -> None:
    spots = ((200.0, 180.0), (420.0, 200.0), (320.0, 340.0))
    for n in (2, 3):
        oks = Counter[str]()
        scenes = 0
        for body, pip in LEANING_LOOKS.values():
            for squash in (0.6, 0.7, 0.8):
                for angle in (0.0, 45.0, 90.0):
                    for values in ((2, 5, 4), (4, 6, 5), (3, 3, 6)):
                        dice = [DieSpec(v, c, angle=angle + 180.0 * (i == 2), squash=squash, body=body, pip=pip)
                                for i, (v, c) in enumerate(zip(values[:n], spots[:n], strict=True))]
                        frame = render(dice, seed=scenes)
                        scenes += 1
                        for mode, (r, _) in both(partial(read_dice, frame, expect=n)).items():
                            oks[mode] += r.verdict is Verdict.OK
        print(f"rendered: {n} dice leaning alike ({scenes} scenes), wrong ok: "
              + ", ".join(f"{m} {oks[m]}" for m in MODES))


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--every", type=int, default=1, help="every N-th Byler photo")
    ap.add_argument("--seeds", type=int, default=20, help="scenes of each simulated table")
    ap.add_argument("--no-photos", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if not args.no_photos:
        if byler.available():
            photos(args.every)
        else:
            print(byler.SKIP_REASON)
    tables(args.seeds)
    leaning_alike()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
