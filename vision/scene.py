"""What a frame says about its camera: the colour of the light, and the sensor's noise.

Pure: a frame in, a number or three out. Thresholds elsewhere that would otherwise hold for one camera
only (the one the development photos came from) are set against these.

The light. A camera's white balance is rarely exact: under
tungsten or warm LED light a white die comes out cream or peach (red up, blue down by a fifth or more),
under daylight from a window bluish. The brightest surfaces of a table (white dice, paper, the board's
light squares, glare) are near white in the light itself, so their median colour is the light's colour:
the "white patch" estimate, taken over the brightest half per cent.

Measured on the Byler photos: the brightest 0.5% of every photo is neutral to within 4% per channel (the
camera's balance was good); with a warm cast applied (blue x0.75, green x0.95, red x1.15) the estimate
reads it back as 0.78 / 0.99 / 1.23 of the mean in every photo, with a cool one 1.19 / 1.00 / 0.81.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# Share of the frame (by brightness) taken as the light's colour: two dice on a board are 1% of a 640x480
# frame, and a cream or pale green board must not be what "white" means (at 3%, 1% it partly was).
BRIGHTEST = 0.005
# A channel at or above this level is clipped: its pixel tells the light's colour wrongly.
CLIPPED = 250
# The largest correction per channel: a camera's balance is off by a fifth or a quarter, not by half. A
# frame whose brightest part is a coloured surface (a yellow tray, a red card) is not made "white" by more.
MAX_GAIN = 1.5
STEP = 4  # every STEP-th pixel in each direction: the estimate is a median over a hundred or more pixels


def neutral_gains(bgr: U8) -> F64:
    """Per-channel (B, G, R) factors that make the light's colour grey, keeping its mean brightness."""
    h, w = bgr.shape[:2]
    # Every STEP-th pixel each way; brightness is luma; pixels with a clipped channel are left out. (OpenCV
    # calls throughout: the product reads a frame in a few milliseconds, and numpy's version of this took
    # 0.9 ms of them.)
    small = np.asarray(cv2.resize(bgr, (max(1, w // STEP), max(1, h // STEP)), interpolation=cv2.INTER_NEAREST),
                       dtype=np.uint8)
    unclipped = cv2.inRange(small, (0, 0, 0), (CLIPPED - 1, CLIPPED - 1, CLIPPED - 1))
    luma = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    hist = cv2.calcHist([luma], [0], unclipped, [256], [0, 256]).ravel()
    n = max(10, round(BRIGHTEST * luma.size))
    if float(hist.sum()) < n:
        return np.ones(3)
    level = 255 - int(np.searchsorted(np.cumsum(hist[::-1]), n))  # the brightest n pixels (and their ties)
    # (np.median's value, per channel: the middle one or the mean of the middle two, in float64, from one
    # partition without np.median's overhead.)
    px = small[(luma >= level) & (unclipped > 0)]
    m = len(px)
    part = np.partition(px, ((m - 1) // 2, m // 2), axis=0)
    light = (part[(m - 1) // 2].astype(np.float64) + part[m // 2]) / 2.0
    if float(light.min()) <= 0.0:
        return np.ones(3)
    return np.asarray(np.clip(float(light.mean()) / light, 1.0 / MAX_GAIN, MAX_GAIN), np.float64)


# Immerkaer's noise mask: the difference of two Laplacians, blind to flat areas, ramps and straight edges.
_NOISE_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
# For Gaussian noise of deviation s the mask's response has deviation 6 s, whose median magnitude is
# 0.6745 of that.
_MEDIAN_ABS = 0.6745 * 6.0


def noise_sigma(gray: U8) -> float:
    """The standard deviation of the sensor's pixel noise in `gray` (grey levels).

    The median response of Immerkaer's mask: a median rather than his mean, so that edges, pips and
    lettering (a minority of pixels) do not count as noise. A dim room's webcam or a Pi camera at high gain
    shows 3-8 levels; the Byler photos (a phone's denoised JPEGs) 0 (the median response is nil), the
    simulated camera 1.5; Gaussian noise of 6 levels per colour channel added to the Byler photos reads as
    3.95-4.2, the 4.0 it is in grey. The same, exactly, for the image inverted (255 - gray): the mask's
    weights sum to nil, so its response there is the response here turned over (the reader reuses it).
    """
    # On every other pixel each way (a quarter of the work): pixel noise is independent from pixel to pixel,
    # so the mask sees the same noise two pixels apart (Byler with noise, the simulated camera: the same
    # estimate to 0.25 levels; the reader runs this once for each plane it reads).
    half = np.ascontiguousarray(gray[::2, ::2])
    r = cv2.filter2D(half, cv2.CV_16S, _NOISE_MASK, borderType=cv2.BORDER_REPLICATE)
    inner = r[1:-1, 1:-1]
    rank = (inner.size + 1) // 2
    if inner.size < 2 ** 24:
        # The magnitudes saturated at 255 and counted by OpenCV (float32 counts, exact under 2**24): below 255
        # the running counts are numpy's, so a median under 255 is the same, for two thirds of the time.
        counts = cv2.calcHist([cv2.convertScaleAbs(inner)], [0], None, [256], [0, 256]).ravel()
        median = int(np.searchsorted(np.cumsum(counts.astype(np.int64)), rank))
        if median < 255:
            return median / _MEDIAN_ABS
    counts = np.bincount(np.abs(inner).ravel())
    return int(np.searchsorted(np.cumsum(counts), rank)) / _MEDIAN_ABS
