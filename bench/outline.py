"""Bench: the board found by its own outline (calibration/outline.py) against the common "document scanner" recipe.

Usage: .venv/bin/python bench/outline.py [--seeds N]

The peer, written here: Canny on the blurred grey photo (thresholds 50/150), contours, and the largest one
whose approxPolyDP at 2% of its perimeter has four corners; no side fitting, no check of what is inside.

Photos, each read by both:
- the marker tests' rendered board without its markers (tests/calibration/test_calibration.py flat_table: a
  board with a printed ring of spaces on a table), at the six camera poses of the marker tests and two frame
  sizes, N noise seeds each; straight down, the table's own edge is in view around the board;
- the simulated camera's board (hardware/simcam.py: wooden table, tokens on the board's edge, two dice) at
  five tilts, N seeds each;
- the same board with the table covered by a checked or a striped cloth (tests/calibration/test_outline.py
  _on_cloth) at three tilts, N seeds each;
- the Byler dice photos (no board: dice on a sheet): any corners given there are a board where none is.

Printed: for each set, photos found within tolerance (1.5 px rendered, 4 px simulated, whose printed border
line puts the edge found 1.4 px in), wrong (found elsewhere) and refused, the worst and median corner error of
those found right, and the median time per photo.

Measured 2026-11-28 (this 2-core AMD EPYC, one OpenCV thread, --seeds 10, 40 s):
- rendered boards, 120 photos: ours 120 right (worst 1.29 px, median 0.35 px), 53.8 ms a photo; the peer 23
  right, 97 wrong (the table's edge or the ring of spaces taken for the board), 2.2 ms;
- the simulated camera's board, 50 photos: ours 50 right (worst 3.65 px, median 3.32 px), 34.6 ms; the peer
  none right, 16 wrong, 34 refused (its wooden table's grain joins the board's contour), 1.1 ms;
- the simulated board on a checked or striped cloth, 60 photos: ours 50 right (worst 3.62 px), 10 refused
  (checks at 40 degrees), none wrong, 69.5 ms; the peer none right, 41 wrong;
- the 250 Byler photos, which hold no board: ours refused all 250 (2.3 ms), the peer gave corners for 4.
A calibration is made once per table (the slowest photo took 101 ms), so the time is not what matters; the
wrong boards are.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np

from calibration import fit
from calibration.markers import BOARD_IDS
from calibration.model import CalibrationError
from calibration.outline import find_board
from hardware.simcam import SimulatedCamera
from hardware.simrender import face_up
from tests.calibration.test_calibration import ANGLES, _true_corners, camera_homography, flat_table, photograph
from tests.vision import byler_data as byler

Corners = tuple[tuple[float, float], ...]
Truth = list[tuple[float, float]] | None


def peer(image: np.ndarray) -> Corners:
    """The document-scanner recipe: the largest contour simplified to four corners."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    contours, _ = cv2.findContours(cv2.Canny(grey, 50, 150), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:10]:
        approx = cv2.approxPolyDP(c, 0.02 * cv2.arcLength(c, True), True)
        if len(approx) == 4 and cv2.contourArea(approx) > 0.05 * image.shape[0] * image.shape[1]:
            return tuple((float(x), float(y)) for x, y in approx.reshape(4, 2))
    raise CalibrationError("no four-cornered contour")


def rendered(seeds: int) -> Iterator[tuple[np.ndarray, Truth]]:
    for seed in range(seeds):
        for out in ((1280, 960), (640, 480)):
            for tilt, yaw, roll in ANGLES:
                rng = np.random.default_rng(1000 + seed)
                canvas, corners, _ = flat_table(rng, skip=BOARD_IDS)
                hom = camera_homography(tilt, yaw, roll, out)
                yield photograph(canvas, hom, out, rng), _true_corners(corners, hom)


def simulated(seeds: int) -> Iterator[tuple[np.ndarray, Truth]]:
    for seed in range(seeds):
        for tilt in (0, 12, 25, 40, 55):
            cam = SimulatedCamera(seed=seed, tilt_deg=tilt)
            rng = np.random.default_rng(seed)
            dice = [cam.posed_die((float(rng.uniform(-110, 110)), float(rng.uniform(-110, 110)), cam.die_mm / 2),
                                  face_up(int(rng.integers(1, 7)))) for _ in range(2)]
            yield cam.still(dice), [(float(x), float(y)) for x, y in cam.board_corners_px()]


def on_cloth(seeds: int) -> Iterator[tuple[np.ndarray, Truth]]:
    from tests.calibration.test_outline import _on_cloth

    for seed in range(seeds):
        for cloth in ("checks", "stripes"):
            for tilt in (0, 20, 40):
                cam = SimulatedCamera(seed=seed, tilt_deg=tilt)
                yield _on_cloth(cam, cloth, seed), [(float(x), float(y)) for x, y in cam.board_corners_px()]


def no_board() -> Iterator[tuple[np.ndarray, Truth]]:
    for p in byler.photos():
        yield p.image, None


def score(name: str, photos: Iterator[tuple[np.ndarray, Truth]], tol: float,
          readers: dict[str, Callable[[np.ndarray], Corners]]) -> None:
    right: dict[str, list[float]] = {k: [] for k in readers}
    wrong = dict.fromkeys(readers, 0)
    refused = dict.fromkeys(readers, 0)
    times: dict[str, list[float]] = {k: [] for k in readers}
    n = 0
    for image, truth in photos:
        n += 1
        for k, read in readers.items():
            t0 = time.perf_counter()
            try:
                found = read(image)
            except CalibrationError:
                refused[k] += 1
                continue
            finally:
                times[k].append(time.perf_counter() - t0)
            if truth is None:
                wrong[k] += 1
                continue
            try:
                err = fit.polygon_error(fit.order_corners(found), fit.order_corners(truth))
            except CalibrationError:
                wrong[k] += 1
                continue
            if err <= tol:
                right[k].append(err)
            else:
                wrong[k] += 1
    print(f"{name} ({n} photos; right within {tol:g} px):")
    for k in readers:
        errs = right[k]
        spread = f", worst {max(errs):.2f} px, median {statistics.median(errs):.2f} px" if errs else ""
        print(f"  {k:5s}: {len(errs)} right, {wrong[k]} wrong, {refused[k]} refused{spread}; "
              f"median {1000 * statistics.median(times[k]):.1f} ms a photo")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    readers: dict[str, Callable[[np.ndarray], Corners]] = {"ours": find_board, "peer": peer}
    score("rendered boards, six poses x two sizes", rendered(args.seeds), 1.5, readers)
    score("the simulated camera's board, five tilts", simulated(args.seeds), 4.0, readers)
    score("the simulated board on a checked or striped cloth, three tilts", on_cloth(args.seeds), 4.0, readers)
    if byler.available():
        score("Byler dice photos (no board: any corners are wrong)", no_board(), 0.0, readers)
    else:
        print("Byler photos: not found (../shared/data/dice-byler); skipped")


if __name__ == "__main__":
    main()
