"""Draw a DiceReading onto a copy of its frame: each die's outline, value and confidence, and the verdict.

Pure drawing (arrays in, array out); writing the picture to a file is the caller's business.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading import DiceReading, Verdict

_GREEN = (40, 180, 40)
_RED = (30, 30, 220)
_AMBER = (0, 160, 230)


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
    for i, d in enumerate(reading.dice, start=1):
        colour = _GREEN if d.value is not None and d.on_board else (_RED if not d.on_board else _AMBER)
        if d.corners:
            box = np.array(d.corners, np.float32).round().astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [box], True, colour, thick)
        else:
            r = max(4, round(d.size / 2))
            cx, cy = round(d.center[0]), round(d.center[1])
            cv2.rectangle(out, (cx - r, cy - r), (cx + r, cy + r), colour, thick)
        label = f"{i}:{d.value if d.value is not None else '?'} {d.confidence:.2f}"
        org = (round(d.center[0] - d.size / 2), max(12, round(d.center[1] - d.size / 2 - 4)))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, colour, thick, cv2.LINE_AA)
    verdict = reading.verdict.value
    text = verdict + (f" total {reading.total}" if reading.verdict is Verdict.OK else f": {reading.reason}")
    colour = _GREEN if reading.verdict is Verdict.OK else _RED
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, thick)
    org = (8, 8 + th)
    cv2.rectangle(out, (4, 4), (12 + tw, 12 + th + base), (255, 255, 255), cv2.FILLED)
    cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, colour, thick, cv2.LINE_AA)
    return out
