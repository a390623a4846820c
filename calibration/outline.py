"""Find the board by its own outline, for a photo of a table without the marker sheet. Pure: image in, corners out.

A Monopoly board is a flat square, so in a photo it is the largest four-sided outline that lies wholly inside
the frame. The edges of the photo (Canny, its thresholds from the photo's own gradients) are closed into
contours; each large contour's convex hull is simplified to four corners, a rough quadrilateral. Each of its
sides is then fitted again to the edge pixels along it (a robust line fit), the corners are where the fitted
lines meet, and the quadrilateral is kept only where most of each side runs along an edge: a table's corner,
a sheet of paper or a patch of light does not draw four straight, continuous sides, and pieces or dice on the
board's edge break up only a little of one. A board is also told by its ring of spaces: the spaces' inner edge
draws a second square a little inside the first. An outline without one is a table's or a sheet's; and where
a patterned cloth or a busy table joins the board's edge into one tangle of contours, the ring (inside the
board, clear of them) still stands out, and the board is grown outward from it and fitted.

Nothing here knows a board's printing, so it works for any edition; the board's size in millimetres (the
homography's scale) comes from the caller, as with clicked corners.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from calibration.model import CalibrationError, Point

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

WORK_SIDE = 960  # long side of the working copy, pixels: a board's edge is long; finer detail is not needed
MIN_AREA = 0.08  # the board covers at least this share of the photo (a board under a fifth of its width is too
#                  small to read dice on anyway)
MIN_RING_AREA = MIN_AREA * (1.0 - 2.0 * 0.15) ** 2  # the ring of spaces of the smallest board (see GROW)
EDGE_MARGIN = 0.004  # a corner nearer the photo's edge than this share of its size: the board runs out of the photo
MIN_SUPPORT = 0.6  # share of a side, away from its corners, that must run along an edge
OPEN_SHARE = 0.03  # the opening that trims a contour's thin attachments: this share of the photo's short side
MAX_SPAN = 48  # ... but no further than this many pixels of the working copy (the search is span^2 lines)
SEARCH = 0.06  # a side is looked for this share of its length either way of where the rough outline puts it
MIN_ANGLE = 35.0  # degrees: a square seen from up to about 60 degrees off vertical keeps its corners wider
EDGE_PERCENTILE = 92.0  # Canny's high threshold: this percentile of the photo's gradient magnitude...
MIN_EDGE = 40.0  # ... but no lower than this (L1 Sobel units): a flat photo's noise is no edge
# The ring of spaces: a Monopoly board's corner squares take about 0.13 of its side (the US board: 2.6 of 20
# inches; the simulated board 1.6 of 12.2 units), so the spaces' inner edge draws a second square that far
# inside the first. Looked for between these shares of the side, in steps of STEP.
RING = (0.09, 0.19)
RING_STEP = 0.004
GROW = (0.11, 0.13, 0.15)  # insets at which an inner square is grown into the board it may be the ring of


def find_board(image: U8) -> tuple[Point, Point, Point, Point]:
    """The board's four outer corners in `image` (BGR or grey, pixels), in the order they go round the
    board (not yet named: calibration.fit.order_corners does that). Raises CalibrationError naming what was
    seen where no board outline is found."""
    h, w = image.shape[:2]
    if min(h, w) < 32:
        raise CalibrationError(f"the image is {w}x{h}: too small to find a board in")
    scale = min(1.0, WORK_SIDE / max(h, w))
    small = image if scale == 1.0 else cv2.resize(image, (round(w * scale), round(h * scale)),
                                                  interpolation=cv2.INTER_AREA)
    grey = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = board_edges(np.asarray(grey, dtype=np.uint8))
    why: str | None = None
    rough = _rough_quads(edges)
    # An inner square may stand for the board: a patterned cloth or a busy table joins the board's own edge to
    # its lines, where the ring of spaces inside the board stays clear of them (see _grown).
    tries = [*rough, *(_grown(q, inset) for q in rough for inset in GROW)]
    for quad in tries:
        found = _board_at(quad, edges)
        if isinstance(found, str):
            why = why or found  # the largest outline's, the one a person would take for the board
            continue
        corners = found / scale
        return tuple((float(x), float(y)) for x, y in corners)  # type: ignore[return-value]
    raise CalibrationError(f"no board outline found: {why or NOTHING_LARGE}")


def _board_at(quad: F64, edges: U8) -> F64 | str:
    """The board whose outline `quad` roughly is (its sides fitted to the edges), or why it is none."""
    h, w = edges.shape
    reach = SEARCH * max(w, h)
    if (quad < -reach).any() or (quad[:, 0] > w + reach).any() or (quad[:, 1] > h + reach).any():
        return "the largest outline runs off the photo (the whole board must be in view)"
    fitted = _fit_sides(quad, edges)
    if isinstance(fitted, str):
        return fitted
    problem = _implausible(fitted, edges.shape[1], edges.shape[0])
    if problem:
        return problem
    inset, support = ring_of_spaces(fitted, edges)
    if support < MIN_SUPPORT:
        return (f"the largest four-sided outline has no ring of spaces inside it (at best {support:.0%} of a "
                "square inside it runs along an edge): a table's or a sheet's edge, not a board's")
    return _innermost(fitted, inset, edges)


def _grown(quad: F64, inset: float) -> F64:
    """The board whose ring of spaces `quad` would be, at `inset` of the board's side in from its edge."""
    t = inset / (1.0 - 2.0 * inset)
    to_image = cv2.getPerspectiveTransform(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32),
                                           quad.astype(np.float32))
    out = np.array([[[-t, -t], [1 + t, -t], [1 + t, 1 + t], [-t, 1 + t]]], np.float32)
    return np.asarray(cv2.perspectiveTransform(out, to_image)[0], np.float64)


NOTHING_LARGE = "no closed four-sided outline covering 8% of the photo or more"


def board_edges(grey: U8) -> U8:
    """Canny edges of `grey`, lightly smoothed first, with thresholds from its own gradients."""
    blurred = cv2.GaussianBlur(grey, (5, 5), 1.2)
    gx = cv2.Sobel(blurred, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(blurred, cv2.CV_32F, 0, 1)
    mag = np.abs(gx) + np.abs(gy)
    high = max(MIN_EDGE, float(np.percentile(mag[::2, ::2], EDGE_PERCENTILE)))
    return np.asarray(cv2.Canny(blurred, 0.5 * high, high), dtype=np.uint8)


def _rough_quads(edges: U8) -> list[F64]:
    """Four-cornered simplifications of the large contours of `edges`, largest first.

    Each contour gives two: its convex hull's, and that of the contour filled and opened. The hull takes in
    what touches the board's edge from outside (the table's grain, a cable), which can stretch its corners
    well off the board's; filled and opened, such thin attachments go, but a board's edge with a gap in it
    fills only in part. The sides are fitted to the edges afterwards either way (_fit_sides)."""
    h, w = edges.shape
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    k = max(5, round(OPEN_SHARE * min(w, h)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    quads: list[tuple[float, F64]] = []
    for c in contours:
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) < MIN_RING_AREA * w * h:
            continue
        hulls = [hull.astype(np.float32)]
        x, y, bw, bh = cv2.boundingRect(c)
        pad = k + 1
        mask = np.zeros((bh + 2 * pad, bw + 2 * pad), np.uint8)
        cv2.drawContours(mask, [c], -1, 255, cv2.FILLED, offset=(pad - x, pad - y))
        blobs, _ = cv2.findContours(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), cv2.RETR_EXTERNAL,
                                    cv2.CHAIN_APPROX_SIMPLE)
        if blobs:
            blob = cv2.convexHull(max(blobs, key=cv2.contourArea)).astype(np.float32)
            hulls.append(blob + np.array([x - pad, y - pad], np.float32))
        for poly in hulls:
            area = float(cv2.contourArea(poly))
            if area < MIN_RING_AREA * w * h:
                continue
            perimeter = float(cv2.arcLength(poly, True))
            for eps in (0.01, 0.02, 0.03, 0.05):
                approx = cv2.approxPolyDP(poly, eps * perimeter, True)
                if len(approx) == 4:
                    quad = approx.reshape(4, 2).astype(np.float64)
                    if not any(np.abs(quad - q).max() < 2.0 for _, q in quads):
                        quads.append((area, quad))
                    break
    return [q for _, q in sorted(quads, key=lambda aq: -aq[0])]


def _fit_sides(quad: F64, edges: U8) -> F64 | str:
    """The quadrilateral with each side moved onto the edge it lies near, or why it is no board's outline.

    A rough quadrilateral can be well off the board: a hull takes in whatever touches the board's edge (a die,
    a piece, the table's grain). So each side is first searched for: of the lines whose ends lie within SEARCH
    of its ends, the one that runs furthest along an edge (the outermost of those nearly as good: a printed
    border's outer edge, not its inner one). Then it is fitted to the edge pixels along that line, the corners
    are where the fitted sides meet, and the search is made again, close, around them."""
    near = np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)), dtype=np.uint8)
    ys, xs = np.nonzero(edges)
    pts = np.column_stack([xs, ys]).astype(np.float64)
    current = quad
    for reach in (SEARCH, 0.01):
        centre = current.mean(axis=0)
        lines = []
        for k in range(4):
            fitted = _fit_side(current[k], current[(k + 1) % 4], centre, near, pts, reach)
            if isinstance(fitted, str):
                return fitted
            lines.append(fitted)
        corners = [_meet(lines[k - 1], lines[k]) for k in range(4)]
        if any(c is None for c in corners):
            return "two sides of the outline are parallel"
        current = np.array(corners, dtype=np.float64)
    return current


def _fit_side(a: F64, b: F64, centre: F64, near: U8, pts: F64, reach: float) -> tuple[F64, F64] | str:
    """The line (point, unit direction) of the edge that side a-b lies near (see _fit_sides), or why none."""
    d = b - a
    length = float(np.hypot(d[0], d[1]))
    if length < 20.0:
        return "a side of the outline is too short"
    u = d / length
    n = np.array([-u[1], u[0]])
    if (0.5 * (a + b) - centre) @ n < 0:
        n = -n  # outward
    h, w = near.shape
    t = np.linspace(0.08, 0.92, 84)
    span = min(MAX_SPAN, max(2, round(reach * length)))
    offs = np.arange(-span, span + 1, dtype=np.float64)
    d0, d1 = (g.ravel() for g in np.meshgrid(offs, offs, indexing="ij"))
    along = a[None, :] + t[:, None] * d[None, :]  # (T, 2)
    shift = (1.0 - t)[None, :] * d0[:, None] + t[None, :] * d1[:, None]  # (K, T)
    xy = along[None, :, :] + shift[:, :, None] * n[None, None, :]
    xi = np.rint(xy[..., 0]).astype(np.int64)
    yi = np.rint(xy[..., 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    hit = np.zeros(xi.shape, bool)
    hit[inside] = near[yi[inside], xi[inside]] > 0
    support = hit.mean(axis=1)
    best = float(support.max())
    if best < MIN_SUPPORT:
        return (f"only {best:.0%} of one side of the largest outline runs along a straight edge (a board's runs "
                "all along)")
    good = np.nonzero(support >= best - 0.03)[0]
    pick = good[np.argmax(d0[good] + d1[good])]
    a2 = a + d0[pick] * n
    b2 = b + d1[pick] * n
    u2 = (b2 - a2) / float(np.hypot(*(b2 - a2)))
    n2 = np.array([-u2[1], u2[0]])
    rel = pts - a2
    tt = rel @ u2
    on = (np.abs(rel @ n2) <= 1.5) & (tt >= 0.08 * length) & (tt <= 0.92 * length)
    if int(on.sum()) < 10:
        return "a side of the outline has no edge along it"
    line = cv2.fitLine(pts[on].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(4)
    return np.array([line[2], line[3]], np.float64), np.array([line[0], line[1]], np.float64)


def _meet(l1: tuple[F64, F64], l2: tuple[F64, F64]) -> F64 | None:
    """Where two lines (point, unit direction) cross; None where they are (nearly) parallel."""
    (p, u), (q, v) = l1, l2
    det = u[0] * (-v[1]) - u[1] * (-v[0])
    if abs(det) < 1e-3:
        return None
    s = ((q[0] - p[0]) * (-v[1]) - (q[1] - p[1]) * (-v[0])) / det
    return np.asarray(p + s * u, np.float64)


def ring_of_spaces(quad: F64, edges: U8) -> tuple[float, float]:
    """(inset, support): the square inside `quad` (a share of its side in from each side, on the board's own
    plane) whose sides run furthest along an edge, and that share: the least of its four sides'."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_image = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))  # within two pixels of an edge
    h, w = edges.shape
    t = np.linspace(0.1, 0.9, 60)
    best = (0.0, 0.0)
    for s in np.arange(RING[0], RING[1] + 1e-9, RING_STEP):
        a, b = s, 1.0 - s
        sides = []
        for (x0, y0), (x1, y1) in (((a, a), (b, a)), ((b, a), (b, b)), ((b, b), (a, b)), ((a, b), (a, a))):
            pts = np.column_stack([x0 + (x1 - x0) * t, y0 + (y1 - y0) * t]).astype(np.float32)
            img = cv2.perspectiveTransform(pts[None], to_image)[0]
            xi = np.clip(np.rint(img[:, 0]).astype(np.int64), 0, w - 1)
            yi = np.clip(np.rint(img[:, 1]).astype(np.int64), 0, h - 1)
            sides.append(float(np.mean(near[yi, xi] > 0)))
        if min(sides) > best[1]:
            best = (float(s), min(sides))
    return best


def _innermost(quad: F64, inset: float, edges: U8) -> F64:
    """`quad`, or the square of its ring where that has a ring of its own: the table's edge in view around a
    board it holds at about a ring's share in is a square with a ring (the board's outline), but the board's
    ring (its spaces' inner edge) has none inside it, only the board's middle."""
    for _ in range(3):
        unit = np.array([[inset, inset], [1 - inset, inset], [1 - inset, 1 - inset], [inset, 1 - inset]],
                        np.float32)
        to_image = cv2.getPerspectiveTransform(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32),
                                               quad.astype(np.float32))
        ring = cv2.perspectiveTransform(unit[None], to_image)[0].astype(np.float64)
        fitted = _fit_sides(ring, edges)
        if isinstance(fitted, str) or _implausible(fitted, edges.shape[1], edges.shape[0]):
            return quad
        inner_inset, support = ring_of_spaces(fitted, edges)
        if support < MIN_SUPPORT:
            return quad
        quad, inset = fitted, inner_inset
    return quad


def _implausible(quad: F64, w: int, h: int) -> str | None:
    """Why `quad` cannot be a whole board seen by a camera (None where it can)."""
    margin = EDGE_MARGIN * max(w, h)
    if (quad[:, 0] < margin).any() or (quad[:, 0] > w - 1 - margin).any() or \
            (quad[:, 1] < margin).any() or (quad[:, 1] > h - 1 - margin).any():
        return "the largest outline runs off the photo (the whole board must be in view)"
    if cv2.contourArea(quad.astype(np.float32)) < MIN_AREA * w * h:
        return "the largest outline covers less than 8% of the photo"
    if len(cv2.convexHull(quad.astype(np.float32))) != 4:
        return "the largest outline is not convex"
    for k in range(4):
        e1 = quad[k - 1] - quad[k]
        e2 = quad[(k + 1) % 4] - quad[k]
        cos = float(e1 @ e2 / (np.linalg.norm(e1) * np.linalg.norm(e2)))
        angle = float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))
        if not MIN_ANGLE <= angle <= 180.0 - MIN_ANGLE:
            return f"the largest outline has a corner of {angle:.0f} degrees, too sharp for a square board in view"
    return None
