"""From markers, the board's outline or clicked corners to a `Calibration`: homography, polygons, die size and
colours. Pure."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt

from calibration.markers import BOARD_IDS, CORNER_NAMES, TRAY_IDS, Marker, detect_markers
from calibration.model import Calibration, CalibrationError, Point, focal_from_hfov
from calibration.outline import find_board

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

MONOPOLY_BOARD_MM = 508.0  # a standard 20-inch Monopoly board
STANDARD_DIE_MM = 16.0


def order_corners(points: Sequence[Point]) -> tuple[Point, Point, Point, Point]:
    """Four points in image order: top-left, top-right, bottom-right, bottom-left (clockwise on screen).

    Sorted by angle around their centre, starting from the point nearest the top-left direction, so it works
    for a board seen at any rotation up to 45 degrees, and is unambiguous beyond that up to where the
    user would call another corner "top-left" anyway.
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.shape != (4, 2) or not np.isfinite(pts).all():
        raise CalibrationError(f"need exactly four corner points, got {len(points)}")
    c = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])  # y down: increasing angle is clockwise
    order = np.argsort(angles)
    ring = pts[order]
    start = int(np.argmin(ring[:, 0] + ring[:, 1]))  # top-left: smallest x + y
    ring = np.roll(ring, -start, axis=0)
    area = 0.5 * float(np.sum(ring[:, 0] * np.roll(ring[:, 1], -1) - np.roll(ring[:, 0], -1) * ring[:, 1]))
    if abs(area) < 100.0:
        raise CalibrationError("the four corners are (nearly) on one line: not a board")
    hull = cv2.convexHull(ring.astype(np.float32))
    if len(hull) != 4:
        raise CalibrationError("the four corners do not form a convex quadrilateral")
    return tuple((float(x), float(y)) for x, y in ring)  # type: ignore[return-value]


def homography_to_board(corners: Sequence[Point], board_mm: float) -> F64:
    """Image -> board plane in millimetres, origin at the board's top-left corner."""
    src = np.asarray(corners, dtype=np.float32)
    dst = np.array([[0, 0], [board_mm, 0], [board_mm, board_mm], [0, board_mm]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)


def die_size_from_geometry(hom: F64, board_mm: float, die_mm: float) -> float:
    """Side of a die lying at the board centre, in image pixels, from the board's size alone.

    The top face is a little nearer the camera than the board; the difference (die height / camera
    height, a few percent) is below what this estimate is good for, so it is ignored.
    """
    inv = np.linalg.inv(hom)
    m = board_mm / 2
    h = die_mm / 2
    square = np.array([[[m - h, m - h], [m + h, m - h], [m + h, m + h], [m - h, m + h]]], dtype=np.float64)
    img = cv2.perspectiveTransform(square, inv)[0]
    sides = np.linalg.norm(img - np.roll(img, 1, axis=0), axis=1)
    return float(np.mean(sides))


def _inner_corners(markers: Mapping[int, Marker], ids: Sequence[int], what: str) -> tuple[Point, ...]:
    missing = [i for i in ids if i not in markers]
    if missing:
        names = ", ".join(f"{i} ({what} {CORNER_NAMES[i % 4]})" for i in missing)
        found = ", ".join(str(i) for i in sorted(markers)) or "none"
        raise CalibrationError(f"missing {what} corner marker(s) {names}; markers found: {found}")
    centres = np.array([markers[i].center for i in ids])
    mid = centres.mean(axis=0)
    points = []
    for i in ids:
        quad = np.array(markers[i].corners)
        points.append(quad[int(np.argmin(np.linalg.norm(quad - mid, axis=1)))])
    quad = np.array(points)
    # In id order the corners must go round the board one way without crossing; swapped markers make a
    # bow tie. (The camera may be turned any way, so image "top-left" is not checked against id 0.)
    edges = [quad[(k + 1) % 4] - quad[k] for k in range(4)]
    turns = [float(edges[k][0] * edges[(k + 1) % 4][1] - edges[k][1] * edges[(k + 1) % 4][0]) for k in range(4)]
    if not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
        raise CalibrationError(f"{what} markers are not where their ids say (ids {', '.join(map(str, ids))} "
                               "must go round the corners in order): check the placement")
    return tuple((float(p[0]), float(p[1])) for p in points)


def _polygon(points: Sequence[Point]) -> tuple[Point, ...]:
    return tuple((round(float(x), 2), round(float(y), 2)) for x, y in points)


def _hom_tuple(hom: F64) -> tuple[tuple[float, float, float], ...]:
    return tuple((float(r[0]), float(r[1]), float(r[2])) for r in hom)


def from_photo(image: U8, board_mm: float = MONOPOLY_BOARD_MM, die_mm: float = STANDARD_DIE_MM,
               tray: bool | None = None) -> Calibration:
    """Calibrate from a photo of the table: by the marker sheet's markers where it shows any (a missing
    one is then named, not guessed around), else by the board's own outline (calibration/outline.py).
    The outline gives no dice tray: `tray=True` needs the markers."""
    markers = detect_markers(image)
    if markers:
        return from_markers(image, board_mm, die_mm, tray, markers=markers)
    if tray is True:
        raise CalibrationError("no calibration markers found in the image: the dice tray is found by its markers "
                               "(ids 4-7; print them with `tableside calibration-sheet`)")
    try:
        corners = find_board(image)
    except CalibrationError as exc:
        raise CalibrationError(f"no calibration markers found in the image, and {exc} (print markers with "
                               "`tableside calibration-sheet`, or click the board's four corners in the clerk's "
                               "console)") from exc
    h, w = image.shape[:2]
    return from_outline(corners, (w, h), board_mm, die_mm)


def from_outline(corners: Sequence[Point], image_size: tuple[int, int], board_mm: float = MONOPOLY_BOARD_MM,
                 die_mm: float = STANDARD_DIE_MM) -> Calibration:
    """The calibration of a board found by its outline (calibration/outline.py find_board): as from clicked
    corners, recorded as found so."""
    cal = from_corners(corners, image_size, board_mm, die_mm)
    return replace(cal, source="outline")


def from_markers(image: U8, board_mm: float = MONOPOLY_BOARD_MM, die_mm: float = STANDARD_DIE_MM,
                 tray: bool | None = None, markers: Mapping[int, Marker] | None = None) -> Calibration:
    """Calibrate from a photo with the board markers (and the tray markers, for Catan).

    `tray=None` uses the tray markers when all four are there and refuses a partial set; `tray=True`
    requires them; `tray=False` ignores them. `markers`: those already detected in `image`, if they were.
    """
    if markers is None:
        markers = detect_markers(image)
    if not markers:
        raise CalibrationError("no calibration markers found in the image (print them with "
                               "`tableside calibration-sheet`, or calibrate by clicking the four corners)")
    board = _inner_corners(markers, BOARD_IDS, "board")
    tray_ids_found = [i for i in TRAY_IDS if i in markers]
    tray_poly: tuple[Point, ...] | None = None
    if tray is True or (tray is None and tray_ids_found):
        tray_poly = _inner_corners(markers, TRAY_IDS, "tray")
    hom = homography_to_board(board, board_mm)
    h, w = image.shape[:2]
    sizes = [float(np.mean(np.linalg.norm(np.array(markers[i].corners) - np.roll(np.array(markers[i].corners),
                                                                                  1, axis=0), axis=1)))
             for i in BOARD_IDS]
    return Calibration(
        image_size=(int(w), int(h)),
        board_polygon=_polygon(board),
        tray_polygon=_polygon(tray_poly) if tray_poly else None,
        homography=_hom_tuple(hom),
        die_size_px=round(die_size_from_geometry(hom, board_mm, die_mm), 2),
        source="markers",
        extra={"board_mm": board_mm, "die_mm": die_mm, "die_size_from": "board geometry",
               "markers": sorted(markers), "marker_side_px": [round(s, 1) for s in sizes]},
    )


def from_corners(points: Sequence[Point], image_size: tuple[int, int], board_mm: float = MONOPOLY_BOARD_MM,
                 die_mm: float = STANDARD_DIE_MM, tray_points: Sequence[Point] | None = None) -> Calibration:
    """Calibrate from four clicked board corners (any order), for a board without markers."""
    w, h = image_size
    for x, y in list(points) + list(tray_points or ()):
        if not (-0.5 <= x <= w + 0.5 and -0.5 <= y <= h + 0.5):
            raise CalibrationError(f"corner ({x:g}, {y:g}) is outside the {w}x{h} image")
    board = order_corners(points)
    tray = order_corners(tray_points) if tray_points else None
    hom = homography_to_board(board, board_mm)
    return Calibration(
        image_size=(int(w), int(h)),
        board_polygon=_polygon(board),
        tray_polygon=_polygon(tray) if tray else None,
        homography=_hom_tuple(hom),
        die_size_px=round(die_size_from_geometry(hom, board_mm, die_mm), 2),
        source="corners",
        extra={"board_mm": board_mm, "die_mm": die_mm, "die_size_from": "board geometry"},
    )


def sample_die_appearance(image: U8, quads: Sequence[Sequence[Point]]) -> tuple[float, tuple[int, int, int],
                                                                                  tuple[int, int, int]]:
    """Die side (px), body colour and pip colour (BGR) from the top faces of dice of a calibration throw.

    Inside each top face the pixels split in two by lightness (Otsu): the larger part is the body, the
    smaller the pips. Works for dark dice with light pips too.
    """
    if not quads:
        raise CalibrationError("no dice to sample")
    sides: list[float] = []
    bodies: list[F64] = []
    pips: list[F64] = []
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    for quad in quads:
        q = np.asarray(quad, dtype=np.float64)
        if q.shape != (4, 2):
            raise CalibrationError("a die's top face needs four corners")
        sides.append(float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1))))
        # Shrink the face a little so the rim and shadows don't get in.
        c = q.mean(axis=0)
        inner = c + 0.8 * (q - c)
        mask = np.zeros(gray.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(inner).astype(np.int32)], 255)
        values = gray[mask > 0]
        if values.size < 9:
            continue
        thr, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        light = (gray > thr) & (mask > 0)
        dark = (gray <= thr) & (mask > 0)
        body, pip = (light, dark) if light.sum() >= dark.sum() else (dark, light)
        if body.any():
            bodies.append(np.median(image[body], axis=0))
        if pip.any():
            pips.append(np.median(image[pip], axis=0))
    if not bodies:
        raise CalibrationError("the dice are too small to sample their colours")
    body_c = np.median(np.array(bodies), axis=0)
    pip_c = np.median(np.array(pips), axis=0) if pips else body_c
    return float(np.median(sides)), _bgr3(body_c), _bgr3(pip_c)


def _bgr3(a: F64) -> tuple[int, int, int]:
    return round(float(a[0])), round(float(a[1])), round(float(a[2]))


def with_dice_sample(cal: Calibration, image: U8, quads: Sequence[Sequence[Point]]) -> Calibration:
    """The calibration with die size and colours measured on the dice of a calibration throw."""
    side, body, pip = sample_die_appearance(image, quads)
    geometric = cal.die_size_px
    if geometric and not (0.4 * geometric <= side <= 2.5 * geometric):
        raise CalibrationError(f"the dice found measure {side:.0f} px but the board says a die should be "
                               f"about {geometric:.0f} px: wrong --board-mm/--die-mm, or not dice")
    extra = dict(cal.extra)
    extra.update({"die_size_from": f"{len(quads)} dice of a calibration throw",
                  "die_size_geometry_px": geometric})
    return replace(cal, die_size_px=round(side, 2), die_color_bgr=body, pip_color_bgr=pip, extra=extra)


def with_lens(cal: Calibration, hfov_deg: float) -> Calibration:
    """The calibration with its camera's lens: `hfov_deg`, the horizontal field of view of the frames it is for
    (degrees), recorded as extra.focal_px (pixels of `image_size`). Near overhead the board's perspective is
    too faint to measure the lens from four corners (vision/camera.py): the lens given is used instead."""
    if not (isinstance(hfov_deg, (int, float)) and 10.0 <= hfov_deg <= 170.0):
        raise CalibrationError(f"a lens's horizontal field of view must be 10-170 degrees, not {hfov_deg!r}")
    focal = focal_from_hfov(cal.image_size[0], hfov_deg)
    return replace(cal, extra={**cal.extra, "hfov_deg": float(hfov_deg), "focal_px": round(focal, 2)})


def polygon_error(a: Sequence[Point], b: Sequence[Point]) -> float:
    """Largest distance between corresponding corners of two polygons (pixels)."""
    return max(math.dist(p, q) for p, q in zip(a, b, strict=True))


def from_corners_again(old: Calibration | None, points: Sequence[Point], image_size: tuple[int, int]) -> Calibration:
    """Corners clicked again on the running camera's frames (`image_size`: the clerk clicks on its preview):
    a calibration from them that keeps what `old` knew besides the corners. Four corners say where the board
    is; they do not say how large the board and the dice are, what the dice look like, what the lens is or
    where the dice tray lies, and a camera bumped and re-clicked has not changed any of those:

    - the board's and the die's size in mm (`--board-mm`, `--die-mm`);
    - the dice's colours and, where a calibration throw measured it, the die's size, as a share of the size
      the board's geometry gives (which follows the new corners);
    - the lens (`--hfov`), for frames of the new size, where they are of the old calibration's shape;
    - the dice tray (Catan), carried across on the board's plane: it lies on the table beside the board.

    The old calibration may be for frames of another size (a still taken larger than the camera's frames):
    only the new corners are in the running frames' pixels. Frames of another shape show another part of
    the sensor (Calibration.check_frame), in a way the calibration cannot tell: the lens is not carried
    across then (extra.lens_dropped says so), and is measured or assumed as for a calibration without one."""
    if old is None:
        return from_corners(points, image_size)
    board_mm = float(old.extra.get("board_mm", MONOPOLY_BOARD_MM))
    die_mm = float(old.extra.get("die_mm", STANDARD_DIE_MM))
    cal = from_corners(points, image_size, board_mm=board_mm, die_mm=die_mm)
    extra = dict(cal.extra)
    die = cal.die_size_px
    measured, geometric = old.die_size_px, old.extra.get("die_size_geometry_px")
    if die and measured and isinstance(geometric, (int, float)) and geometric > 0:
        extra.update({"die_size_from": f"{old.extra.get('die_size_from', 'a calibration throw')}, "
                                       "scaled with the board's corners clicked again",
                      "die_size_geometry_px": die})
        die = round(die * measured / float(geometric), 2)
    tray = None
    if old.tray_polygon and old.homography and cal.homography:
        on_board = cv2.perspectiveTransform(np.array([old.tray_polygon], np.float64), np.array(old.homography))
        back = cv2.perspectiveTransform(on_board, np.linalg.inv(np.array(cal.homography, np.float64)))[0]
        tray = _polygon([(float(x), float(y)) for x, y in back])
    cal = replace(cal, die_size_px=die, die_color_bgr=old.die_color_bgr, pip_color_bgr=old.pip_color_bgr,
                  tray_polygon=tray, extra=extra)
    hfov = old.extra.get("hfov_deg")
    lens = old.focal_px is not None or "hfov_deg" in old.extra
    try:
        old.check_frame(image_size)
    except CalibrationError:
        if lens:
            return replace(cal, extra={**cal.extra, "lens_dropped": f"the calibration it replaces was for "
                                       f"{old.image_size[0]}x{old.image_size[1]} frames, another shape"})
        return cal
    if isinstance(hfov, (int, float)) and not isinstance(hfov, bool):
        return with_lens(cal, float(hfov))
    if old.focal_px:
        # (A lens known in pixels only: the same lens, in pixels of the new frames.)
        focal = old.focal_px * image_size[0] / old.image_size[0]
        return replace(cal, extra={**cal.extra, "focal_px": round(focal, 2)})
    return cal
