"""Where the dice are in a frame, and how big, from a small fully convolutional net: the first look of the
reader's opt-in quick path (vision/quick.py).

Without a calibration the reader does not know the die size or where the board is, and its pip and body
segmentation (vision/bodies.py, faces.py) has to try several thresholds on the whole frame: 50-80 ms on a
640x480 photo. The spotter answers the first question, where might a die be, in a few milliseconds (a
640x640 photo 4.5 ms on 2026-11-26's slow run, 2.2 ms of it the net): it sees the frame shrunk to a
quarter (an eighth or a sixteenth for frames over 1080 or 2160 pixels high, so that a die stays roughly
5-25 spotter pixels) and returns a spot per die: its centre, its box side and a score. The dice net
(vision/dicenet.py) then reads each spot. The spotter decides where to look, never a verdict on its own.

The models are trained by training/spotter.py (PyTorch, not a dependency of the product) and run here from
ONNX files in vision/models/, like the dice net's: `spotter.onnx` on all the Byler photos,
`spotter-fold{k}.onnx` without fold k, for held-out scoring. vision/models/spotter.json records how each was
made and its held-out recall.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dicenet import FOLDS, MODEL_DIR, Runtime, load

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]

DOWN = 4  # frame pixels per spotter pixel, for frames up to 1080 pixels high (`down_for`)
STRIDE = 2  # spotter pixels per output cell
# Least score of a spot. Below it the spotter's false spots multiply (fold 0's model on all the Byler photos:
# 432 false spots at 0.2, 136 at 0.3, 55 at 0.4) for few dice (1,790, 1,788, 1,775 of 1,795 spotted); the
# dice net and the reader's checks sort out the false ones, each at the cost of a crop read.
THRESHOLD = 0.3


@dataclass(frozen=True)
class Spot:
    x: float  # centre, frame pixels
    y: float
    size: float  # side of the die's box (top face and any side faces in view), frame pixels
    score: float  # 0..1


def normalise(image: U8) -> F32:
    """(H, W, 3) to (3, H, W): less its mean per channel, over its spread over all channels (+8 so that a
    flat image stays flat). OpenCV's blobFromImage does the arithmetic: numpy took a third of the spotter's
    time on a 160x160 input."""
    mean, std = cv2.meanStdDev(image)
    spread = math.sqrt(float(np.mean(std ** 2)) + float(np.var(mean)))
    blob = cv2.dnn.blobFromImage(image, 1.0 / (spread + 8.0), mean=tuple(float(m) for m in mean.ravel()))
    return np.asarray(blob[0], np.float32)


def down_for(shape: tuple[int, ...]) -> int:
    """Frame pixels per spotter pixel: 4, doubled for each doubling of the frame beyond 1080 pixels high."""
    down = DOWN
    while min(shape[0], shape[1]) / down > 270:
        down *= 2
    return down


def decode(maps: F32, scale_x: float, scale_y: float, threshold: float = THRESHOLD) -> tuple[Spot, ...]:
    """Spots from the net's (4, h, w) output (heat logit, x and y offset in cells, log size in spotter
    pixels): the local maxima of the heat at or above `threshold`, strongest first. `scale_x/y` are frame
    pixels per spotter pixel."""
    heat = 1.0 / (1.0 + np.exp(-maps[0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    spots = [Spot(STRIDE * (x + float(maps[1, y, x]) + 0.5) * scale_x,
                  STRIDE * (y + float(maps[2, y, x]) + 0.5) * scale_y,
                  math.exp(float(maps[3, y, x])) * scale_x, float(heat[y, x]))
             for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
    return tuple(sorted(spots, key=lambda s: -s.score))


class Spotter:
    """One trained spotter, loaded from its ONNX file ("auto": ONNX Runtime where installed, else OpenCV)."""

    def __init__(self, path: Path, runtime: Runtime = "auto") -> None:
        self.path = path
        self.runtime, self._forward = load(path, runtime, "spotter")
        self._lock = threading.Lock()

    @staticmethod
    @cache
    def shipped() -> Spotter:
        return Spotter(MODEL_DIR / model_name(None))

    @staticmethod
    @cache
    def fold(k: int) -> Spotter:
        """The model that never saw fold `k` of the Byler photos."""
        if not 0 <= k < FOLDS:
            raise ValueError(f"fold {k} out of range 0..{FOLDS - 1}")
        return Spotter(MODEL_DIR / model_name(k))

    def maps(self, frame: U8) -> tuple[F32, float, float]:
        """The net's raw output on `frame` and the frame pixels per spotter pixel (x, y)."""
        h, w = frame.shape[:2]
        down = down_for(frame.shape)
        small = np.asarray(cv2.resize(frame, (max(8, round(w / down)), max(8, round(h / down))),
                                      interpolation=cv2.INTER_AREA), dtype=np.uint8)
        with self._lock:
            out = self._forward(normalise(small)[None])
        return out[0], w / small.shape[1], h / small.shape[0]

    def spots(self, frame: U8, threshold: float = THRESHOLD) -> tuple[Spot, ...]:
        """The dice the spotter sees in a BGR uint8 frame, strongest first."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"spotter wants a BGR uint8 frame (H, W, 3), got {frame.dtype} {frame.shape}")
        maps, sx, sy = self.maps(frame)
        return decode(maps, sx, sy, threshold)


def model_name(fold: int | None) -> str:
    return "spotter.onnx" if fold is None else f"spotter-fold{fold}.onnx"
