"""The common blob-and-cluster dice recipe, re-implemented by us as a peer to measure against.

The recipe (as popularised by the `cv-dice-detection` project and the tutorials that follow it): median-blur
the colour frame (7x7) to take out noise and texture, find dark round blobs (pips) in its grey image with
OpenCV's SimpleBlobDetector at its default settings but for a stricter roundness (minimum inertia ratio
0.6), group the pip centres with DBSCAN (eps 40 px, min_samples 1: a die's pips lie within about one pip
spacing of each other), and call each cluster's pip count a die's value. No die-body segmentation, no
layout check, no notion of confidence. `read_dice_peer` is that recipe as published; on the Byler photos it
reads 12.8% of the dice right, the figure the issue quotes for it (12%).

`read_dice_lean` is our own faster variant of it, kept for comparison: no median blur, a smaller minimum
blob area (8 px: Byler's small pips), roundness by circularity as well, and eps from the median blob size
rather than fixed. DBSCAN is a plain numpy version in both (min_samples=1 makes it the connected components
of the eps-neighbourhood graph), so the bench needs no scikit-learn.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading import DiceReading, Die, Verdict


def _dbscan(points: NDArray[np.float64], eps: float) -> NDArray[np.int64]:
    """Cluster labels with min_samples=1: connected components of the eps-neighbourhood graph."""
    n = len(points)
    labels = np.full(n, -1, np.int64)
    if n == 0:
        return labels
    d = np.hypot(points[:, None, 0] - points[None, :, 0], points[:, None, 1] - points[None, :, 1])
    near = d <= eps
    k = 0
    for i in range(n):
        if labels[i] >= 0:
            continue
        stack = [i]
        labels[i] = k
        while stack:
            j = stack.pop()
            for m in np.nonzero(near[j] & (labels < 0))[0]:
                labels[m] = k
                stack.append(int(m))
        k += 1
    return labels


def _recipe_detector() -> cv2.SimpleBlobDetector:
    params = cv2.SimpleBlobDetector_Params()  # thresholds 50..220 step 10, dark blobs, area 25..5000, convex
    params.filterByInertia = True
    params.minInertiaRatio = 0.6
    return cv2.SimpleBlobDetector_create(params)


def _lean_detector() -> cv2.SimpleBlobDetector:
    params = cv2.SimpleBlobDetector_Params()
    params.filterByColor = True
    params.blobColor = 0  # dark pips
    params.filterByArea = True
    params.minArea = 8
    params.maxArea = 400
    params.filterByCircularity = True
    params.minCircularity = 0.6
    params.filterByInertia = True
    params.minInertiaRatio = 0.5
    params.filterByConvexity = False
    return cv2.SimpleBlobDetector_create(params)


_RECIPE = _recipe_detector()
_LEAN = _lean_detector()
RECIPE_EPS = 40.0  # px, as published


def read_dice_peer(frame: NDArray[np.uint8], expect: int | None = 2) -> DiceReading:
    """The recipe as published."""
    gray = cv2.cvtColor(cv2.medianBlur(frame, 7), cv2.COLOR_BGR2GRAY)
    return _clustered(_RECIPE.detect(gray), RECIPE_EPS, expect)


def read_dice_lean(frame: NDArray[np.uint8], expect: int | None = 2) -> DiceReading:
    """Our faster variant (see the module docstring)."""
    kps = _LEAN.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    eps = 2.2 * float(np.median([k.size for k in kps])) if kps else 0.0
    return _clustered(kps, eps, expect)


def _clustered(kps: tuple[cv2.KeyPoint, ...], eps: float, expect: int | None) -> DiceReading:
    if not kps:
        return DiceReading(Verdict.UNREADABLE, "no dice found", ())
    pts = np.array([k.pt for k in kps], np.float64)
    labels = _dbscan(pts, eps)
    dice = []
    for lab in range(int(labels.max()) + 1):
        members = pts[labels == lab]
        n = len(members)
        cx, cy = members.mean(axis=0)
        dice.append(Die(value=n if 1 <= n <= 6 else None, center=(float(cx), float(cy)), confidence=1.0))
    if expect is not None and len(dice) != expect:
        return DiceReading(Verdict.UNREADABLE, f"found {len(dice)} dice, expected {expect}", tuple(dice))
    if any(d.value is None for d in dice):
        return DiceReading(Verdict.UNREADABLE, "a cluster with more than 6 pips", tuple(dice))
    return DiceReading(Verdict.OK, "", tuple(dice))
