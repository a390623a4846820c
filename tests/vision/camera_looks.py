"""The Byler photos as other cameras would take them: another white balance, exposure, noise, size, JPEG.

The issue judges the reader on photos from cameras we do not have. These are the ways such a camera
differs that can be put on a photo after the fact; the dice, their labels and their colour classes stay
those of the original photo (byler_data), with the label boxes scaled along with the photo.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from tests.vision import byler_data as byler

U8 = NDArray[np.uint8]


def _gains(b: float, g: float, r: float) -> Callable[[U8], U8]:
    k = np.array([b, g, r], np.float32)
    return lambda img: np.clip(img.astype(np.float32) * k, 0, 255).astype(np.uint8)


def _gamma(gamma: float) -> Callable[[U8], U8]:
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
    return lambda img: np.asarray(cv2.LUT(img, lut), dtype=np.uint8)


def _noise(sd: float) -> Callable[[U8], U8]:
    def add(img: U8) -> U8:
        # Seeded by the photo's own pixels: the same noise for the same photo on every run.
        rng = np.random.default_rng(int(img[::37, ::41].sum()))
        return np.clip(img.astype(np.float32) + rng.normal(0.0, sd, img.shape), 0, 255).astype(np.uint8)
    return add


def _jpeg(quality: int) -> Callable[[U8], U8]:
    def recode(img: U8) -> U8:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
    return recode


def _blur(sigma: float) -> Callable[[U8], U8]:
    return lambda img: np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), dtype=np.uint8)


# name -> (change to the pixels, scale of the photo)
LOOKS: dict[str, tuple[Callable[[U8], U8], float]] = {
    # White balance off by a fifth to a third (R/B 1.5): tungsten light on a daylight balance, and the reverse.
    "warm light": (_gains(0.75, 0.95, 1.15), 1.0),
    "cool light": (_gains(1.2, 1.0, 0.8), 1.0),
    "darker (gamma 1.6)": (_gamma(1.6), 1.0),
    "brighter (gamma 0.6)": (_gamma(0.6), 1.0),
    "noise 6 levels": (_noise(6.0), 1.0),
    "JPEG quality 40": (_jpeg(40), 1.0),
    "soft focus (blur 1 px)": (_blur(1.0), 1.0),
    "0.7x (dice 22-31 px)": (lambda img: img, 0.7),
    "1.5x": (lambda img: img, 1.5),
    # A higher-resolution camera, and a phone's photo of the table (dice of 150-300 px; the photo enlarged by
    # cubic interpolation is softer than a sharp camera's would be). Both are read shrunk (vision/scale.py).
    "3x": (lambda img: img, 3.0),
    "5x (a phone's photo)": (lambda img: img, 5.0),
}


def seen(photo: byler.Photo, look: str) -> byler.Photo:
    change, scale = LOOKS[look]
    img = photo.image
    if scale != 1.0:
        h, w = img.shape[:2]
        img = np.asarray(cv2.resize(img, (round(w * scale), round(h * scale)),
                                    interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC), dtype=np.uint8)
    dice = tuple(replace(d, box=(d.box[0] * scale, d.box[1] * scale, d.box[2] * scale, d.box[3] * scale))
                 for d in photo.dice)
    return replace(photo, image=np.ascontiguousarray(change(img)), dice=dice)


def photos(look: str, every: int = 1) -> Iterator[byler.Photo]:
    for p in byler.photos():
        if p.index % every == 0:
            yield seen(p, look)
