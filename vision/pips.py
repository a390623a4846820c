"""Pip candidates: small round spots darker or lighter than their surroundings, at the scale of a pip.

Pure: arrays in, plain values out. A black-hat (dark spots) and a top-hat (light spots) of the grey image,
with a kernel a little over twice a pip's diameter, respond to pips of either polarity on a die of any
colour while the die bodies themselves (several times wider than the kernel) and straight edges give
little. Each local maximum is measured along eight rays: its half-width (the pip's radius) and how far
that half-width differs between directions (a pip is round; an edge, a board line or a smear is not).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# Eight unit rays (E, SE, S, SW, W, NW, N, NE); opposite rays are 4 apart.
_RAYS = np.array([(np.cos(a), np.sin(a)) for a in np.arange(8) * np.pi / 4])


@dataclass(frozen=True)
class Candidates:
    """Pip-like spots of one polarity, in frame pixels; arrays share their first axis."""

    xy: F64  # (n, 2) centre
    peak: F64  # (n,) contrast with the surroundings (grey levels)
    radius: F64  # (n,) half-width at half the peak, pixels
    elong: F64  # (n,) longest over shortest diameter among four axes (1 = round)
    axis: NDArray[np.int64]  # (n,) index 0..3 of the longest diameter's direction (multiples of 45 deg)
    dark: bool  # polarity: dark spots on a lighter face

    def __len__(self) -> int:
        return len(self.xy)

    def take(self, idx: NDArray[np.int64]) -> Candidates:
        return Candidates(self.xy[idx], self.peak[idx], self.radius[idx], self.elong[idx], self.axis[idx],
                          self.dark)


def odd(x: float) -> int:
    n = max(3, round(x))
    return n if n % 2 else n + 1


def responses(gray: U8, kernel: int) -> tuple[U8, U8]:
    """(dark, light) spot responses: black-hat and top-hat of `gray`, lightly smoothed."""
    k = np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel, kernel)), dtype=np.uint8)
    out = []
    for op in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):
        r = cv2.morphologyEx(gray, op, k)
        # One maximum per pip even where JPEG blocks or a flat-bottomed pip give a ragged top.
        out.append(np.asarray(cv2.GaussianBlur(r, (3, 3), 0.8), dtype=np.uint8))
    return out[0], out[1]


def detect(resp: U8, floor: float, max_radius: int, dark: bool) -> Candidates:
    """Local maxima of `resp` at least `floor` high, measured along eight rays up to `max_radius`."""
    mx = cv2.dilate(resp, np.ones((5, 5), np.uint8))
    peaks = cv2.bitwise_and(cv2.compare(resp, mx, cv2.CMP_GE),
                            cv2.compare(resp, np.full_like(resp, int(min(255.0, floor))), cv2.CMP_GE))
    nz = cv2.findNonZero(peaks)
    if nz is None:
        return _empty(dark)
    pts = nz.reshape(-1, 2).astype(np.int64)
    h, w = resp.shape
    val = resp[pts[:, 1], pts[:, 0]].astype(np.float64)
    # Flat tops give several maxima a pixel or two apart: keep one per 3x3-pixel cell.
    cell = (pts[:, 1] // 3) * (w // 3 + 1) + pts[:, 0] // 3
    _, first = np.unique(cell, return_index=True)
    pts, val = pts[first], val[first]
    radii = np.arange(1, max_radius + 1, dtype=np.float64)
    sx = np.clip(np.rint(pts[:, 0, None, None] + _RAYS[None, :, 0, None] * radii[None, None, :]), 0, w - 1)
    sy = np.clip(np.rint(pts[:, 1, None, None] + _RAYS[None, :, 1, None] * radii[None, None, :]), 0, h - 1)
    prof = resp[sy.astype(np.int64), sx.astype(np.int64)].astype(np.float64)  # (n, 8, R)
    below = prof < 0.5 * val[:, None, None]
    # First radius below half the peak on each ray (max_radius + 1 where it never drops: a ridge).
    first = np.where(below.any(axis=2), below.argmax(axis=2) + 0.5, max_radius + 1.0)
    diam = first[:, :4] + first[:, 4:]
    elong = diam.max(axis=1) / np.maximum(diam.min(axis=1), 1e-6)
    return Candidates(pts.astype(np.float64), val, diam.mean(axis=1) / 2.0, elong,
                      diam.argmax(axis=1).astype(np.int64), dark)


def _empty(dark: bool) -> Candidates:
    z = np.zeros((0,), np.float64)
    return Candidates(np.zeros((0, 2), np.float64), z, z, z, np.zeros((0,), np.int64), dark)


def sample(img: U8, xy: F64) -> F64:
    """Nearest-pixel values of a single-channel image at points (clipped to the frame)."""
    h, w = img.shape[:2]
    x = np.clip(np.rint(xy[..., 0]), 0, w - 1).astype(np.int64)
    y = np.clip(np.rint(xy[..., 1]), 0, h - 1).astype(np.int64)
    return img[y, x].astype(np.float64)
