"""ArUco markers for calibration: the printable sheet (as an image array) and their detection. Pure.

Layout convention. Four markers go just outside the board's corners and four around the dice tray (Catan):

    board: id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
    tray:  id 4 top-left, 5 top-right, 6 bottom-right, 7 bottom-left

Each marker sits outside its corner, the corner of its black square on the board's corner (its white paper
margin may lie on the board). Which of its corners does not matter: the board corner is taken as the
marker corner nearest to the middle of the four markers, so a marker turned any way round still gives the
right point.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

DICTIONARY_ID = cv2.aruco.DICT_4X4_50
BOARD_IDS: tuple[int, int, int, int] = (0, 1, 2, 3)
TRAY_IDS: tuple[int, int, int, int] = (4, 5, 6, 7)
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")

A4_MM = (210.0, 297.0)


@dataclass(frozen=True)
class Marker:
    id: int
    corners: tuple[tuple[float, float], ...]  # the marker's own corner order, image pixels

    @property
    def center(self) -> tuple[float, float]:
        c = np.mean(np.array(self.corners), axis=0)
        return float(c[0]), float(c[1])


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY_ID)


def marker_image(marker_id: int, side_px: int) -> U8:
    """One marker, black on white, `side_px` square (the black border included, no white margin)."""
    return np.asarray(cv2.aruco.generateImageMarker(_dictionary(), marker_id, side_px), dtype=np.uint8)


def sheet_image(dpi: int = 200, marker_mm: float = 40.0, page_mm: tuple[float, float] = A4_MM) -> U8:
    """A printable page (greyscale) with the eight markers, each labelled with where it goes.

    Printed at 100 % on A4 the markers are `marker_mm` wide; the exact size does not matter for
    calibration, only that they print sharp and flat.
    """
    px_per_mm = dpi / 25.4
    w, h = round(page_mm[0] * px_per_mm), round(page_mm[1] * px_per_mm)
    page = np.full((h, w), 255, np.uint8)
    side = round(marker_mm * px_per_mm)
    margin = round(15 * px_per_mm)
    cols = 2
    rows = 4
    cell_w = (w - 2 * margin) // cols
    cell_h = (h - 2 * margin - round(12 * px_per_mm)) // rows
    scale = dpi / 200
    cv2.putText(page, "Tableside calibration markers (ArUco 4x4_50). Print at 100%, cut along the grey frame.",
                (margin, margin - round(6 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, 0,
                max(1, round(scale)), cv2.LINE_AA)
    cv2.putText(page, "Place each outside its corner, black square touching it. Board: ids 0-3; tray (Catan): 4-7.",
                (margin, margin - round(1 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, 0,
                max(1, round(scale)), cv2.LINE_AA)
    for k, marker_id in enumerate(BOARD_IDS + TRAY_IDS):
        r, c = divmod(k, cols)
        x0 = margin + c * cell_w + (cell_w - side) // 2
        y0 = margin + round(8 * px_per_mm) + r * cell_h
        page[y0:y0 + side, x0:x0 + side] = marker_image(marker_id, side)
        what = "board" if marker_id in BOARD_IDS else "tray"
        label = f"id {marker_id}: {what} {CORNER_NAMES[marker_id % 4]}"
        cv2.putText(page, label, (x0, y0 + side + round(7 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.7 * scale, 0, max(1, round(1.5 * scale)), cv2.LINE_AA)
        # Cutting guide: a thin grey frame one marker-cell outside the marker keeps the white quiet zone.
        pad = side // 6
        cv2.rectangle(page, (x0 - pad, y0 - pad), (x0 + side + pad, y0 + side + pad), 170, 1)
    return page


def detect_markers(image: U8) -> dict[int, Marker]:
    """Every marker of our dictionary in a BGR or grey image, corners refined to sub-pixel precision."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, Marker] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, np.asarray(ids).ravel(), strict=True):
        pts = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        mid = int(marker_id)
        if mid in found:
            continue  # a duplicate print of the same id: the first one wins, the fit checks consistency
        found[mid] = Marker(mid, tuple((float(x), float(y)) for x, y in pts))
    return found
