"""Pip candidates: small round spots darker or lighter than their surroundings, at the scale of a pip.

Pure: arrays in, plain values out. A black-hat (dark spots) and a top-hat (light spots) of the grey image,
with a kernel a little over twice a pip's diameter, respond to pips of either polarity on a die of any
colour while the die bodies themselves (several times wider than the kernel) and straight edges give
little. Each local maximum is measured along eight rays: its half-width (the pip's radius) and how far
that half-width differs between directions (a pip is round; an edge, a board line or a smear is not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import morph

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# Eight unit rays (E, SE, S, SW, W, NW, N, NE); opposite rays are 4 apart.
_RAYS = np.array([(np.cos(a), np.sin(a)) for a in np.arange(8) * np.pi / 4])
# cv2.max with a scalar operand, typed loosely: the stubs of OpenCV 5.0 and 5.1 disagree on it.
_CV_MAX: Any = cv2.max


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

    def joined(self, more: Candidates) -> Candidates:
        """These spots, then `more` (of the same polarity)."""
        return Candidates(np.concatenate([self.xy, more.xy]), np.concatenate([self.peak, more.peak]),
                          np.concatenate([self.radius, more.radius]), np.concatenate([self.elong, more.elong]),
                          np.concatenate([self.axis, more.axis]), self.dark)


def odd(x: float) -> int:
    n = max(3, round(x))
    return n if n % 2 else n + 1


def responses(gray: U8, kernel: int) -> tuple[U8, U8]:
    """(dark, light) spot responses: black-hat and top-hat of `gray`, lightly smoothed."""
    return hat(gray, kernel, cv2.MORPH_BLACKHAT), hat(gray, kernel, cv2.MORPH_TOPHAT)


def black_hat(gray: U8, kernel: int) -> U8:
    """The dark spot response of `gray` (spots up to `kernel` pixels across), lightly smoothed."""
    return hat(gray, kernel, cv2.MORPH_BLACKHAT)


def hat(gray: U8, kernel: int, op: int) -> U8:
    """A black-hat or top-hat (`op`) of `gray` with a disc `kernel` pixels across, lightly smoothed: one maximum
    per pip even where JPEG blocks or a flat-bottomed pip give a ragged top."""
    return np.asarray(cv2.GaussianBlur(morph.hat(gray, kernel, op), (3, 3), 0.8), dtype=np.uint8)


def detect(resp: U8, floor: float, max_radius: int, dark: bool, valleys: bool = False) -> Candidates:
    """Local maxima of `resp` at least `floor` high, measured along eight rays up to `max_radius`; with `valleys`,
    a spot long at half its peak measured again to the valleys before its neighbours (VALLEY_ELONG)."""
    # At least `floor` and at least every value within 2 px: one comparison against the 5x5 maximum
    # raised to the floor (the same pixels as comparing with each and and-ing the two masks).
    mx = cv2.dilate(resp, _BOX5)
    # (numpy's maximum with a scalar is 10x slower; OpenCV 5.0's stubs do not know cv2 takes a scalar here, 5.1's do)
    _CV_MAX(mx, float(int(min(255.0, floor))), dst=mx)
    nz = cv2.findNonZero(cv2.compare(resp, mx, cv2.CMP_GE))
    if nz is None:
        return empty(dark)
    pts = nz.reshape(-1, 2).astype(np.int64)
    w = resp.shape[1]
    # Flat tops give several maxima a pixel or two apart: keep one per 3x3-pixel cell.
    cell = (pts[:, 1] // 3) * (w // 3 + 1) + pts[:, 0] // 3
    # (What np.unique(cell, return_index=True) does, the first pixel of each cell in cell order, without
    # its overhead: detect runs some fifty times a frame on small maps.)
    srt = np.argsort(cell, kind="stable")
    cs = cell[srt]
    new_cell = np.ones(len(cs), bool)
    np.not_equal(cs[1:], cs[:-1], out=new_cell[1:])
    pts = pts[srt[new_cell]]
    val = resp[pts[:, 1], pts[:, 0]]
    dx, dy = _ray_offsets(max_radius)
    # Ray samples by flat index into the map with its edge pixels repeated max_radius deep: the same pixels
    # as clipping each sample to the map, without clipping n x 8R indices twice.
    r = max_radius
    padded = np.asarray(cv2.copyMakeBorder(resp, r, r, r, r, cv2.BORDER_REPLICATE), dtype=np.uint8)
    pw = w + 2 * r
    flat = padded.ravel()
    # (Each spot's flat index plus each sample's flat offset: integers, so the same indices as adding
    # the coordinates first, in one (n, 8R) sum instead of four.)
    prof = flat[((pts[:, 1] + r) * pw + pts[:, 0] + r)[:, None] + (dy * pw + dx)].reshape(len(pts), 8, max_radius)
    # Below half the peak: prof < 0.5 * val exactly when prof < ceil(val / 2) (integers; in uint8, val <= 255).
    below = prof < ((val >> 1) + (val & 1))[:, None, None]
    # First radius below half the peak on each ray (max_radius + 1 where it never drops: a ridge). Where the
    # first True of argmax is not True, there is none: one look at that sample instead of a second pass.
    at = below.argmax(axis=2)
    hit = np.take_along_axis(below, at[:, :, None], axis=2)[:, :, 0]
    radius, elong, axis = _diameters(np.where(hit, at + 0.5, max_radius + 1.0))
    if valleys:
        long = np.nonzero(elong >= VALLEY_ELONG)[0]
        if long.size:  # (_diameters' arrays are this call's own: updated in place)
            radius[long], elong[long], axis[long] = _to_valleys(prof[long], below[long], val[long], max_radius, floor)
    return Candidates(pts.astype(np.float64), val.astype(np.float64), radius, elong, axis, dark)


# A spot long at half its peak is measured again, each ray ending where the response climbs VALLEY_RISE of the
# peak above its least so far, and at least as much as a spot must stand out at all (detect's `floor`): the next
# pip of a packed face. (A climb of a few grey levels, a ripple along a faint stroke, is no neighbour: with 3
# levels enough, the wood grain beside the simulated board made a die off the board, whole-frame reads of red
# and black dice.) Pips large for their pitch (a small or soft die's 5 or 6) run into each other above half their
# peak, and a round pip measured so was taken for a stroke and never proposed a face (held out on Byler, read
# uncalibrated: 4 dice more read by the pip passes, two coloured 6s among them, and 1 fewer, and 2 more by the
# colour reader, none wrong; docs/vision.md). Only spots at least VALLEY_ELONG long (the pip passes' least
# refusal, spots.MAX_ELONG) are measured again: a round spot's measure stands as it was. The pip passes and
# the colour reader ask for it uncalibrated only (darkpips.light_pass, bodyread.candidate_faces).
VALLEY_ELONG = 2.0
VALLEY_RISE = 0.15


def _to_valleys(prof: NDArray[np.uint8], below: NDArray[np.bool_], val: NDArray[np.uint8],
                max_radius: int, floor: float) -> tuple[F64, F64, NDArray[np.int64]]:
    """(radius, elongation, axis) of spots from their rays' profiles `prof` (n, 8, R), each ray ending at its
    first sample under half the peak (`below`) or the last before it climbs out of a valley."""
    p = prof.astype(np.int16)
    rise = np.maximum(np.ceil(floor), np.rint(VALLEY_RISE * val)).astype(np.int16)
    climbed = (p - np.minimum.accumulate(p, axis=2)) >= rise[:, None, None]
    stop = below.copy()
    stop[:, :, :-1] |= climbed[:, :, 1:]
    at = stop.argmax(axis=2)
    hit = np.take_along_axis(stop, at[:, :, None], axis=2)[:, :, 0]
    return _diameters(np.where(hit, at + 0.5, max_radius + 1.0))


def _diameters(first: F64) -> tuple[F64, F64, NDArray[np.int64]]:
    """(radius, elongation, longest axis) of spots from their eight rays' half-widths `first` (n, 8), opposite
    rays four apart: half the mean of the four diameters, the longest over the shortest, and the first axis
    of the longest (as argmax takes it).

    One column at a time: numpy reduces an axis of four many times slower than it takes the same maxima,
    minima and sums column by column (a full frame's 600 spots: 19 against 2.4 us a maximum). Every value is
    a multiple of a half, so the sums are exact in any order: the same numbers as the reductions."""
    d0, d1, d2, d3 = (first[:, k] + first[:, k + 4] for k in range(4))
    longest = np.maximum(np.maximum(d0, d1), np.maximum(d2, d3))
    elong = longest / np.maximum(np.minimum(np.minimum(d0, d1), np.minimum(d2, d3)), 1e-6)
    axis = np.where(d0 == longest, 0, np.where(d1 == longest, 1, np.where(d2 == longest, 2, 3))).astype(np.int64)
    return (d0 + d1 + d2 + d3) / 4.0 / 2.0, elong, axis


_BOX5 = np.ones((5, 5), np.uint8)
_OFFSETS: dict[int, tuple[NDArray[np.int64], NDArray[np.int64]]] = {}


def _ray_offsets(max_radius: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Integer (dx, dy) of the samples at radii 1..max_radius along the eight rays, flattened (8 * R,).

    A sample was once rint(p + ray * r) for an integer pixel p; that equals p + rint(ray * r) because no
    ray * r lies within 1e-6 of a half-integer (checked here: rounding of the sum could only differ at
    a tie; none up to r = 5000 does), and the rays' ~1e-16 components (cos 90 degrees) round to 0 either
    way. Pixels stay far below 2**40, where the sum itself would round.
    """
    off = _OFFSETS.get(max_radius)
    if off is None:
        step = _RAYS[:, None, :] * np.arange(1, max_radius + 1, dtype=np.float64)[None, :, None]  # (8, R, 2)
        frac = np.abs(step - np.floor(step) - 0.5)
        if frac.min() < 1e-6:
            raise AssertionError("a ray sample falls on a rounding tie")
        r = np.rint(step).astype(np.int64)
        off = (r[..., 0].ravel(), r[..., 1].ravel())
        _OFFSETS[max_radius] = off
    return off


def empty(dark: bool) -> Candidates:
    z = np.zeros((0,), np.float64)
    return Candidates(np.zeros((0, 2), np.float64), z, z, z, np.zeros((0,), np.int64), dark)


def sample(img: U8, xy: F64) -> F64:
    """Nearest-pixel values of a single-channel image at points (clipped to the frame)."""
    h, w = img.shape[:2]
    # Both coordinates at once, clipped by ufuncs (np.clip's own overhead, twice per call, was a tenth of
    # this function: the reader samples a few thousand small point sets a frame). The same pixels.
    ij = np.minimum(np.maximum(np.rint(xy), 0.0), (w - 1, h - 1)).astype(np.int64)
    return img[ij[..., 1], ij[..., 0]].astype(np.float64)
