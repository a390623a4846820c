"""Where the table changed: boxes around each place two looks of the same view differ.

Pure: two grey images in, boxes out. The roll watcher compares every frame with the table's last settled
look on frames shrunk to about 160 pixels wide (vision/watcher.py); once a throw has come to rest, the same
comparison says where to read it: a thrown die lies where the picture changed, and the reader then reads
only there (vision/reader.py, `read_dice(..., changed=...)`), not every die-sized thing on the board.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.silhouette import a_shade

U8 = NDArray[np.uint8]
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 exclusive), frame pixels

# The roll watcher's defaults (vision/watcher.py, WatcherConfig): frames are compared about this wide, and a
# pixel has changed when its grey level (a block average there) moved by more than this.
WORK_WIDTH = 160
THRESHOLD = 14
# Changed pixels closer than this (die sizes) belong to one place: a die's pips, edges and shadow change,
# while a white die's face on a pale board may not.
JOIN = 0.5
# A die's centre lies within this many die sizes of a box of change: a white die on a pale board changes
# little but its pips, edges and shadow, and its face's middle may be one of the places that did not.
CORE = 0.5
# A place with fewer changed pixels than this share of a die's top face holds no die that came or went:
# a die's pips alone are more (a 1's pip is about a twentieth of its face, and its outline and shadow
# change too). Smaller places are sensor noise, a speck of dust, a flicker at an edge.
MIN_PLACE = 0.03


def shrink(image: U8, factor: int) -> U8:
    """`image` (BGR or grey) as grey, `factor` times smaller each way (block averages: less noise)."""
    h, w = image.shape[:2]
    size = (max(1, w // factor), max(1, h // factor))
    # Grey first: averaging one plane, not three, is most of the work (0.45 -> 0.27 ms a 640x480 frame;
    # the result differs from averaging first by a rounding, at most one grey level).
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA) if factor > 1 else grey
    return np.asarray(small, dtype=np.uint8)


def changed_boxes(before: U8, after: U8, *, die: float, threshold: int, factor: int = 1,
                  mask: U8 | None = None) -> tuple[Box, ...]:
    """Boxes around each place where `after` differs from `before` (same-size grey images) by more than
    `threshold` grey levels, within `mask` (non-zero: where to look) if given.

    `die`: a die's side in these images' pixels. `factor`: how many times smaller these images are than the
    frames the boxes are for (shrink's factor); boxes come in the frames' pixels. Largest place first."""
    if before.shape != after.shape:
        raise ValueError(f"changed_boxes: images of different sizes ({before.shape} and {after.shape})")
    hot = np.asarray(cv2.threshold(cv2.absdiff(before, after), threshold, 255, cv2.THRESH_BINARY)[1], np.uint8)
    if mask is not None:
        hot = np.asarray(cv2.bitwise_and(hot, mask), np.uint8)
    if not cv2.countNonZero(hot):
        return ()
    k = max(1, round(JOIN * die))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * (k // 2) + 1, 2 * (k // 2) + 1))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(hot, kernel), connectivity=8)
    counts = np.bincount(labels[hot > 0], minlength=n)
    places = [(int(counts[i]), i) for i in range(1, n) if counts[i] >= max(1.0, MIN_PLACE * die * die)]
    boxes = []
    for _, i in sorted(places, reverse=True):
        x, y, w, h = (int(v) for v in stats[i, :4])
        boxes.append((x * factor, y * factor, (x + w) * factor, (y + h) * factor))
    return tuple(boxes)


def changes(before: U8, after: U8, die: float, *, threshold: int = THRESHOLD,
            work_width: int = WORK_WIDTH) -> tuple[Box, ...]:
    """Boxes (frame pixels) where the frame `after` differs from `before` (BGR frames of one view, the same
    size), found as the roll watcher finds them: both shrunk to about `work_width` pixels wide. `die`: a
    die's side in the frames' pixels."""
    if before.shape != after.shape:
        raise ValueError(f"the frames differ in size ({before.shape[1]}x{before.shape[0]} and "
                         f"{after.shape[1]}x{after.shape[0]}): not two looks of one view")
    factor = max(1, round(after.shape[1] / work_width))
    return changed_boxes(shrink(before, factor), shrink(after, factor), die=die / factor, threshold=threshold,
                         factor=factor)


def grow(box: Box, by: float, size: tuple[int, int]) -> Box:
    """`box` grown by `by` pixels each way, within a frame of `size` (width, height)."""
    m = round(by)
    return max(0, box[0] - m), max(0, box[1] - m), min(size[0], box[2] + m), min(size[1], box[3] + m)


def cores(boxes: tuple[Box, ...], die: float, size: tuple[int, int]) -> tuple[Box, ...]:
    """Where the centre of a die that came or went may lie: each box grown by CORE dice (`die`: pixels)."""
    return tuple(b for b in (grow(box, CORE * die, size) for box in boxes) if b[2] > b[0] and b[3] > b[1])


def inside(xy: tuple[float, float], boxes: tuple[Box, ...]) -> bool:
    """Whether the point `xy` lies in any of `boxes`."""
    return any(x0 <= xy[0] < x1 and y0 <= xy[1] < y1 for x0, y0, x1, y1 in boxes)


def new_share(frame: NDArray[np.uint8], before: NDArray[np.uint8], centre: tuple[float, float],
              radius: float, threshold: int = THRESHOLD) -> float:
    """The share of the disc of `radius` px round `centre` where the colour frame `frame` differs from `before`
    (the same view before the throw, black where it is not known) by more than `threshold` levels in some
    channel and is not a shadow on what was there (its hue, darker, but not under SHADOW of its light:
    vision/silhouette.py's shade), or where `before` is black: what is new there. 1.0 where the disc holds no
    pixel of the frame."""
    h, w = frame.shape[:2]
    r = max(radius, 0.5)
    x0, y0 = max(0, int(centre[0] - r)), max(0, int(centre[1] - r))
    x1, y1 = min(w, int(centre[0] + r) + 1), min(h, int(centre[1] + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return 1.0
    yy, xx = np.arange(y0, y1)[:, None], np.arange(x0, x1)[None, :]
    disc = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2 <= r * r
    if not disc.any():
        return 1.0
    now = frame[y0:y1, x0:x1][disc].astype(np.float32)
    was = before[y0:y1, x0:x1][disc].astype(np.float32)
    moved = np.abs(now - was).max(axis=1) > threshold
    # (Darker only: a white die on a pale board is its hue too, but lighter.)
    new = (moved & ~a_shade(now, was, darker=True)) | (was.max(axis=1) == 0)
    return float(new.mean())
