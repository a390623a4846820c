"""Bench: our dice reader vs the blob-and-cluster peer, same photos, same process, one core.

Usage: .venv/bin/python bench/vision.py [--limit N] [--repeat R] [--sim-seeds S]

For each Byler photo (../shared/data/dice-byler, 640x640) both readers run on the same frame, interleaved,
with one OpenCV thread; each frame is timed R times (perf_counter) and its median kept, and the medians
and means over frames are printed with per-die accuracy/coverage for each, plus the time ratios. A second
timing runs on 640x480 crops of the same photos (the product's frame size), uncalibrated with any number
of dice expected: the reader's slowest case (the body-first pass always runs).

Scored held out: each photo is read with the dice-net fold model that never saw it (vision/dicenet.py);
timed with the shipped model, as the product runs.

Measured (2026-11-25, 2-core machine otherwise idle, R=3, 40 sim seeds; 2m27s): ours 99.63% of 1,635
accepted dice right (99.39% against the labels as published; byler_data.ERRATA lists the 4 corrected),
coverage 91.09% (white 96.46%, coloured 93.83%, dark 85.92%); the peer 37.71% of 525, coverage 29.25% (11.0%
of all dice read right). Time: ours 51.1 ms per 640x640 frame and 36.1 ms per 640x480 crop, the peer 1.7 and
1.3 ms in the same run: peer/ours 0.03x. The body-first colour reader (vision/colourpips.py: eight
morphological maps per die), the pip passes and the net (~1.5 ms per candidate) are the cost. The product
path (simulated camera, calibrated, two dice, 40 seeds x 4 kinds): ours 156/160 verdicts right, no wrong ok,
median 8.7 ms per frame (mean 35.0 ms: frames where the grey pip-first pass does not find both dice read the
other planes and the bodies); the peer 62/160 right with 19 wrong oks, 4.0 ms: peer/ours 0.46x. Targets:
< 15 ms per frame met on the product path's median only; 2x faster than the peer not met. (The issue quotes
~20 ms per 640x480 frame for the recipe as published; this re-implementation, with no median blur and a
numpy DBSCAN, is an order of magnitude faster than that on this machine.)
The peer (bench/peer_blobcluster.py) is our own faithful re-implementation of the common recipe: dark
round blobs by SimpleBlobDetector, grouped by DBSCAN, pips counted per cluster; it has no notion of
confidence, so all its values count as accepted. Scoring is tests/vision/byler_data.py's, shared with
the tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2

from bench.peer_blobcluster import read_dice_peer
from tests.vision import byler_data as byler
from vision.reader import MIN_CONFIDENCE, read_dice


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--limit", type=int, default=0, help="only the first N photos")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per frame (the median is kept)")
    ap.add_argument("--sim-seeds", type=int, default=10,
                    help="simulated-camera throws per kind for the product-path timing (0: skip it)")
    args = ap.parse_args()
    ours = read_dice
    if not byler.available():
        print(byler.SKIP_REASON)
        return 1
    cv2.setNumThreads(1)
    photos = list(byler.photos())
    as_labelled = list(byler.photos(corrected=False))
    if args.limit:
        photos, as_labelled = photos[: args.limit], as_labelled[: args.limit]
    ours_as_labelled = byler.Score()
    times: dict[str, list[float]] = {"ours": [], "peer": []}
    scores = {"ours": byler.Score(), "peer": byler.Score()}
    crop_times: dict[str, list[float]] = {"ours": [], "peer": []}
    repeat = max(1, args.repeat)
    held_out = byler.held_out(ours)
    for i, p in enumerate(photos):
        crop = p.image[80:560, :]
        # Scored: each photo read with the dice-net fold model that never saw it (held out). Timed: the product's
        # reader as shipped, with the model trained on every photo.
        scored = held_out(p)
        for name in ("ours", "peer"):
            full: list[float] = []
            part: list[float] = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                r = ours(p.image, expect=len(p.dice)) if name == "ours" else read_dice_peer(p.image, len(p.dice))
                full.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                if name == "ours":
                    ours(crop, expect=None)
                else:
                    read_dice_peer(crop, None)
                part.append(time.perf_counter() - t0)
            if name == "ours":
                r = scored
            times[name].append(statistics.median(full))
            crop_times[name].append(statistics.median(part))
            byler.score_photo(p, r, MIN_CONFIDENCE if name == "ours" else 0.0, scores[name])
            if name == "ours":
                byler.score_photo(as_labelled[i], r, MIN_CONFIDENCE, ours_as_labelled)
    a = ours_as_labelled.overall
    print(f"(against the labels as published, without tests/vision/byler_data.ERRATA's {len(byler.ERRATA)} "
          f"corrections: ours {a.accuracy:.2%} ({a.correct}/{a.accepted}) among accepted dice)")
    for name in ("ours", "peer"):
        print(byler.report(scores[name], name))
        t, c = times[name], crop_times[name]
        print(f"  time per 640x640 frame: median {1000 * statistics.median(t):.1f} ms, mean "
              f"{1000 * statistics.mean(t):.1f} ms; per 640x480 crop: median {1000 * statistics.median(c):.1f} ms")
    ratio = statistics.median(times["peer"]) / statistics.median(times["ours"])
    crop_ratio = statistics.median(crop_times["peer"]) / statistics.median(crop_times["ours"])
    print(f"speed ratio peer/ours (median per frame): {ratio:.2f}x 640x640, {crop_ratio:.2f}x 640x480 "
          f"({'ours faster' if ratio > 1 else 'ours slower'})")
    o, q = scores["ours"].overall, scores["peer"].overall
    print(f"correct dice: ours {o.correct}/{o.labelled} ({o.correct / o.labelled:.1%}), "
          f"peer {q.correct}/{q.labelled} ({q.correct / q.labelled:.1%})")
    if args.sim_seeds:
        product_path(args.sim_seeds, repeat)
    return 0


def product_path(seeds: int, repeat: int) -> None:
    """The product's own read: a 640x480 frame of the simulated camera at rest, calibrated, two dice
    expected, for each kind of throw; both readers on the same frames, interleaved."""
    from hardware.simcam import SimulatedCamera
    from vision.reading import Verdict

    times: dict[str, list[float]] = {"ours": [], "peer": []}
    right = {"ours": 0, "peer": 0}
    wrong_ok = {"ours": 0, "peer": 0}
    n = 0
    for kind in ("ok", "off_board", "cocked", "stacked"):
        for seed in range(1, seeds + 1):
            cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
            frame = list(cam)[-1].image
            cal = cam.calibration()
            (truth,) = cam.throws
            n += 1
            for name in ("ours", "peer"):
                ts = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    r = read_dice(frame, calibration=cal, expect=2) if name == "ours" else read_dice_peer(frame, 2)
                    ts.append(time.perf_counter() - t0)
                times[name].append(statistics.median(ts))
                values_right = sorted(r.values, key=str) == sorted(truth.values, key=str)
                ok_right = r.verdict is Verdict.OK and values_right
                right[name] += int(ok_right if truth.verdict is Verdict.OK else r.verdict is truth.verdict)
                wrong_ok[name] += int(r.verdict is Verdict.OK and not (truth.verdict is Verdict.OK and values_right))
    print(f"product path (simulated camera 640x480, calibrated, 2 dice; ok / off-board / cocked / stacked x "
          f"{seeds} seeds = {n} throws):")
    for name in ("ours", "peer"):
        t = times[name]
        print(f"  {name}: verdict (and values) right {right[name]}/{n}, wrong ok {wrong_ok[name]}; time per frame "
              f"median {1000 * statistics.median(t):.1f} ms, mean {1000 * statistics.mean(t):.1f} ms")
    ratio = statistics.median(times["peer"]) / statistics.median(times["ours"])
    print(f"  speed ratio peer/ours (median per frame): {ratio:.2f}x")


if __name__ == "__main__":
    raise SystemExit(main())
