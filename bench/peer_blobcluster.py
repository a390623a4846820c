"""The common blob-and-cluster dice recipe, re-implemented by us as a peer to measure against.

The recipe (as popularised by the `cv-dice-detection` project and many tutorials): find dark, round
blobs (pips) in the grey image with OpenCV's SimpleBlobDetector, group the pip centres with DBSCAN
(a die's pips lie within about one pip spacing of each other), and call each cluster's pip count a die's
value. No die-body segmentation, no layout check. DBSCAN here is a plain numpy version (min_samples=1,
eps set from the median pip size, the usual tuning), so the bench needs no scikit-learn.
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


def _detector() -> cv2.SimpleBlobDetector:
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


_DETECTOR = _detector()


def read_dice_peer(frame: NDArray[np.uint8], expect: int | None = 2) -> DiceReading:
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    kps = _DETECTOR.detect(gray)
    if not kps:
        return DiceReading(Verdict.UNREADABLE, "no dice found", ())
    pts = np.array([k.pt for k in kps], np.float64)
    size = float(np.median([k.size for k in kps]))
    labels = _dbscan(pts, eps=2.2 * size)
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
