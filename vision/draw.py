"""Draw a DiceReading onto a copy of its frame: each die's outline, value and confidence, and the verdict.

Pure drawing (arrays in, array out); writing the picture to a file is the caller's business.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading import DiceReading, Die, Verdict

_GREEN = (40, 180, 40)
_RED = (30, 30, 220)
_AMBER = (0, 160, 230)
# The smallest font scale a die's label is drawn at: OpenCV's simplex font at 0.42 has digits 9 px tall, the least
# that reads as "1:6 0.95" on a 640x480 roll picture; half the frame-relative scale there (0.27) drew them 6 px
# tall, and the label read as one run of digits.
LABEL_FONT_MIN = 0.42

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 (inclusive), frame pixels


def annotate(frame: NDArray[np.uint8], reading: DiceReading,
             polygon: tuple[tuple[float, float], ...] | None = None) -> NDArray[np.uint8]:
    """A copy of `frame` with the reading drawn on it (and the play polygon, when given)."""
    out: NDArray[np.uint8] = frame.copy()
    h, w = out.shape[:2]
    scale = max(0.4, min(w, h) / 900.0)
    thick = max(1, round(scale * 2))
    if polygon:
        pts = np.array(polygon, np.float32).round().astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, (200, 120, 0), thick)
    font = max(LABEL_FONT_MIN, 0.5 * scale)
    verdict = reading.verdict.value
    text = verdict + (f" total {reading.total}" if reading.verdict is Verdict.OK else f": {reading.reason}")
    # The verdict's banner is wrapped to the frame's width: a refusal's reason is often wider than a small frame
    # ("die 13 unreadable: no pips seen on a die, and the net not sure of its value (3 at p 0.64)" is 1.3 times a
    # 640 px frame), and one line ran off its right edge.
    banner_font = 0.8 * scale
    lines = wrap(text, w - 16, banner_font, thick)
    sizes = [cv2.getTextSize(line, cv2.FONT_HERSHEY_SIMPLEX, banner_font, thick) for line in lines]
    th = max(t[0][1] for t in sizes)
    base = max(t[1] for t in sizes)
    step = th + base + 4
    banner: Rect = (4, 4, 12 + max(t[0][0] for t in sizes), 12 + th + base + step * (len(lines) - 1))
    outlines = [_outline(d) for d in reading.dice]
    # A label covers no die nor another label nor the banner, where it can help it.
    taken = [banner, *outlines]
    for i, (d, outline) in enumerate(zip(reading.dice, outlines, strict=True), start=1):
        colour = _GREEN if d.value is not None and d.on_board else (_RED if not d.on_board else _AMBER)
        if d.corners:
            box = np.array(d.corners, np.float32).round().astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [box], True, colour, thick)
        else:
            cv2.rectangle(out, outline[:2], outline[2:], colour, thick)
        label = f"{i}:{d.value if d.value is not None else '?'} {d.confidence:.2f}"
        (lw, lh), lbase = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        x0, y0, x1, y1 = place_label((lw + 4, lh + lbase + 4), outline, (w, h), taken)
        taken.append((x0, y0, x1, y1))
        cv2.rectangle(out, (x0, y0), (x1, y1), (255, 255, 255), cv2.FILLED)
        cv2.putText(out, label, (x0 + 2, y0 + 2 + lh), cv2.FONT_HERSHEY_SIMPLEX, font, colour, thick, cv2.LINE_AA)
    colour = _GREEN if reading.verdict is Verdict.OK else _RED
    cv2.rectangle(out, banner[:2], banner[2:], (255, 255, 255), cv2.FILLED)
    for k, line in enumerate(lines):
        cv2.putText(out, line, (8, 8 + th + k * step), cv2.FONT_HERSHEY_SIMPLEX, banner_font, colour, thick,
                    cv2.LINE_AA)
    return out


def wrap(text: str, width: int, font_scale: float, thick: int) -> list[str]:
    """`text` broken into lines no wider than `width` pixels in OpenCV's simplex font: at spaces, and within a word
    only where the word alone is wider than that."""

    def fits(s: str) -> bool:
        return cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick)[0][0] <= width

    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        joined = f"{line} {word}" if line else word
        if fits(joined):
            line = joined
            continue
        if line:
            lines.append(line)
        line = ""
        for ch in word:  # a word wider than the frame: broken where it must be
            if line and not fits(line + ch):
                lines.append(line)
                line = ""
            line += ch
    lines.append(line)
    return lines


def _outline(d: Die) -> Rect:
    """The box a die is drawn with: round its corners where the reader gave them, else a square of its size."""
    if d.corners:
        xs = [round(x) for x, _ in d.corners]
        ys = [round(y) for _, y in d.corners]
        return (min(xs), min(ys), max(xs), max(ys))
    r = max(4, round(d.size / 2))
    cx, cy = round(d.center[0]), round(d.center[1])
    return (cx - r, cy - r, cx + r, cy + r)


def place_label(size: tuple[int, int], outline: Rect, frame: tuple[int, int], taken: list[Rect]) -> Rect:
    """Where a die's label of `size` (w, h) goes: above its `outline`, else below, right or left of it, the first
    of those inside the `frame` (w, h) and clear of every rectangle `taken` (the labels placed so far, the
    verdict's banner); where none is, above it, moved into the frame. Dice a die apart (a stacked pair, two dice
    touching) otherwise get labels drawn over each other."""
    lw, lh = size
    x0, y0, x1, y1 = outline
    fw, fh = frame
    tries = [(x0, y0 - 2 - lh), (x0, y1 + 3), (x1 + 3, y0), (x0 - 3 - lw, y0)]
    for x, y in tries:
        r = (x, y, x + lw - 1, y + lh - 1)
        if r[0] >= 0 and r[1] >= 0 and r[2] < fw and r[3] < fh and not any(_overlap(r, t) for t in taken):
            return r
    x = min(max(0, tries[0][0]), max(0, fw - lw))
    y = min(max(0, tries[0][1]), max(0, fh - lh))
    return (x, y, x + lw - 1, y + lh - 1)


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
