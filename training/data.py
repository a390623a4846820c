"""Training crops for the dice net (vision/dicenet.py), cut from the Byler photos the way the product cuts them.

Each labelled die gives one crop centred on its box, 2.25 die sizes wide at the product's pixel scale (the
die size is the frame's, as segment() measures it, as the product's reader uses it); augmentation turns,
scales and shifts it and keeps the central 1.5 die sizes. Each die also gives one negative: a crop centred
0.6-1.0 die sizes away from it, in a direction where no labelled die lies within 0.5 die sizes, labelled
"no die centred here" (class 0). Without those the net would read a die from a crop centred on its edge
or between two dice. Every body segment() finds that lies in no labelled box (the tray's screw holes, its
rim's corners, a shadow) is a negative too: those are the false candidates the product itself meets.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.vision import byler_data as byler
from vision.bodies import segment
from vision.dicenet import INPUT, crops, fold_of

STORE = 72  # stored crop side, pixels
STORE_WINDOW = 2.25  # stored crop side, die sizes (same pixel scale as dicenet's 48 px / 1.5 dice)
U8 = NDArray[np.uint8]


@dataclass(frozen=True)
class Crops:
    images: NDArray[np.uint8]  # (N, STORE, STORE, 3)
    labels: NDArray[np.int64]  # class index: 0 no die, 1..6 the value
    photo: NDArray[np.int64]  # photo index (sorted by name)
    fold: NDArray[np.int64]
    colour: NDArray[np.str_]  # byler_data colour class ("" for negatives)


def byler_crops(seed: int = 0) -> Crops:
    rng = np.random.default_rng(seed)
    photos = list(byler.photos())
    images, labels, photo, fold, colour = [], [], [], [], []
    for i, p in enumerate(photos):
        seg = segment(p.image, None)
        die = seg.die_size
        centres = [((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2) for d in p.dice]
        pts = np.array(centres, np.float64).reshape(-1, 2)
        negatives = []
        for c in centres:
            for _ in range(20):
                a, r = rng.uniform(0, 2 * np.pi), rng.uniform(0.6, 1.0) * die
                q = (c[0] + r * np.cos(a), c[1] + r * np.sin(a))
                if np.min(np.hypot(pts[:, 0] - q[0], pts[:, 1] - q[1])) >= 0.5 * die:
                    negatives.append(q)
                    break
        for b in seg.bodies:
            x, y = b.center
            if not any(d.box[0] <= x <= d.box[2] and d.box[1] <= y <= d.box[3] for d in p.dice):
                negatives.append((x, y))
        cut = crops(p.image, centres + negatives, die, STORE, STORE_WINDOW)
        images.append(cut)
        labels += [d.value for d in p.dice] + [0] * len(negatives)
        photo += [i] * len(cut)
        fold += [fold_of(i, len(photos))] * len(cut)
        colour += [d.colour for d in p.dice] + [""] * len(negatives)
    return Crops(np.concatenate(images), np.array(labels, np.int64), np.array(photo, np.int64),
                 np.array(fold, np.int64), np.array(colour))


def centred(images: U8) -> U8:
    """The central INPUT px of stored crops: what the product feeds the net."""
    o = (STORE - INPUT) // 2
    return np.ascontiguousarray(images[:, o:o + INPUT, o:o + INPUT])


def sim_crops(seeds: int) -> tuple[U8, NDArray[np.int64], NDArray[np.str_]]:
    """Crops at the true centres of the simulated camera's dice (ok, cocked, stacked throws), at the
    calibrated die size: (images, values (0 for a cocked die), kinds flat/cocked/stacked)."""
    from hardware.simcam import SimulatedCamera

    images, values, kinds = [], [], []
    for kind in ("ok", "cocked", "stacked"):
        for seed in range(1, seeds + 1):
            cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
            frame = list(cam)[-1].image
            cal = cam.calibration()
            die = float(cal.die_size_px or 0.0)
            (truth,) = cam.throws
            images.append(crops(frame, [d.center_px for d in truth.dice], die, STORE, STORE_WINDOW))
            for d in truth.dice:
                values.append(d.value or 0)
                kinds.append("cocked" if d.cocked else "stacked" if d.stacked else "flat")
    return np.concatenate(images), np.array(values, np.int64), np.array(kinds)
