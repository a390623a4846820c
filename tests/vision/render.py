"""Synthetic dice scenes the tests render themselves: white d6 with black pips on a light board.

Deliberately plain: a rounded white square with grey bevel shading, round pips on the standard layout, a
soft shadow, mild sensor noise. Each die can be turned, squashed (a cocked die's top face seen at a
slant, with a side face showing), or drawn over another die (stacked).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


@dataclass(frozen=True)
class DieSpec:
    value: int
    center: tuple[float, float]
    size: float = 40.0
    angle: float = 0.0  # degrees
    squash: float = 1.0  # < 1: top face foreshortened along its x axis (cocked die)
    body: tuple[int, int, int] = (235, 238, 240)
    pip: tuple[int, int, int] = (25, 25, 25)
    big_one: bool = False  # its 1 one large red pip, 0.4 of the face across, as on Japanese dice


def _face(value: int, n: int, body: tuple[int, int, int], pip: tuple[int, int, int],
          big_one: bool = False) -> NDArray[np.uint8]:
    img = np.zeros((n, n, 3), np.uint8)
    img[:] = body
    # Bevel: the rim of the face darkens a little, as on a real die's rounded edges.
    ring = np.zeros((n, n), np.float32)
    cv2.rectangle(ring, (0, 0), (n - 1, n - 1), 1.0, max(2, n // 14))
    ring = cv2.GaussianBlur(ring, (0, 0), n / 30)
    img = (img.astype(np.float32) * (1.0 - 0.35 * ring[..., None])).astype(np.uint8)
    g = 0.27 * n
    if big_one and value == 1:
        cv2.circle(img, (n // 2, n // 2), round(0.2 * n), (40, 40, 200), -1, cv2.LINE_AA)
        return img
    for cu, cv in PIPS[value]:
        cv2.circle(img, (round(n / 2 + cu * g), round(n / 2 + cv * g)), round(0.085 * n), pip, -1, cv2.LINE_AA)
    return img


def render(dice: list[DieSpec], size: tuple[int, int] = (640, 480), seed: int = 0,
           board: tuple[int, int, int] = (190, 214, 222)) -> NDArray[np.uint8]:
    """A BGR frame of `size` (w, h) with the dice drawn in list order (later ones on top)."""
    rng = np.random.default_rng(seed)
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 1.0 - 0.08 * ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4)
    frame = (np.array(board, np.float32)[None, None, :] * shade[..., None])
    n = 160
    for d in dice:
        face = _face(d.value, n, d.body, d.pip, d.big_one).astype(np.float32)
        s = d.size / n
        th = np.deg2rad(d.angle)
        c, si = np.cos(th), np.sin(th)
        # face pixel -> frame: rotate(scale(squash x) * (p - n/2)) + centre
        a = np.array([[c * s * d.squash, -si * s], [si * s * d.squash, c * s]], np.float32)
        t = np.array(d.center, np.float32) - a @ np.array([n / 2, n / 2], np.float32)
        m = np.hstack([a, t[:, None]])
        mask = cv2.warpAffine(np.ones((n, n), np.float32), m, (w, h), flags=cv2.INTER_LINEAR)
        # Soft shadow down-right, then (for a cocked die) a darker side face beside the top face.
        sh = cv2.GaussianBlur(cv2.warpAffine(np.ones((n, n), np.float32), m + np.array([[0, 0, 4], [0, 0, 5]],
                                                                                          np.float32), (w, h)),
                              (0, 0), 3.0)
        frame *= (1.0 - 0.35 * sh)[..., None]
        if d.squash < 1.0:
            side_w = (1.0 - d.squash) * n
            side = np.full((n, n, 3), np.array(d.body, np.float32) * 0.7, np.float32)
            ms = m.copy()
            ms[:, 2] += a @ np.array([-side_w, 0.0], np.float32)
            smask = cv2.warpAffine(np.ones((n, n), np.float32), ms, (w, h))
            sw = cv2.warpAffine(side, ms, (w, h))
            frame = frame * (1 - smask[..., None]) + sw * smask[..., None]
        warped = cv2.warpAffine(face, m, (w, h), flags=cv2.INTER_LINEAR)
        frame = frame * (1 - mask[..., None]) + warped * mask[..., None]
    frame += rng.normal(0.0, 2.0, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8)


def motion_blur(frame: NDArray[np.uint8], length: int, angle: float = 20.0) -> NDArray[np.uint8]:
    k = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    k = cv2.warpAffine(k, rot, (length, length))
    k /= k.sum()
    return np.asarray(cv2.filter2D(frame, -1, k), dtype=np.uint8)


def cover(frame: NDArray[np.uint8], centre: tuple[float, float], size: float, share: float, side: int,
          colour: tuple[int, int, int]) -> None:
    """Lay a flat object (a house, a card, a finger) over `share` of the die at `centre`, in place: an
    axis-aligned block from the right (side 0), left (1), bottom (2) or top (3), reaching past the die."""
    cx, cy = centre
    cut = size / 2 - share * size  # the block's edge, from the die's centre towards the covered side
    x0, y0, x1, y1 = {0: (cx + cut, cy - 1.5 * size, cx + cut + 2 * size, cy + 1.5 * size),
                      1: (cx - cut - 2 * size, cy - 1.5 * size, cx - cut, cy + 1.5 * size),
                      2: (cx - 1.5 * size, cy + cut, cx + 1.5 * size, cy + cut + 2 * size),
                      3: (cx - 1.5 * size, cy - cut - 2 * size, cx + 1.5 * size, cy - cut)}[side]
    cv2.rectangle(frame, (int(x0), int(y0)), (int(x1), int(y1)), colour, -1)
