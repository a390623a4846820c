"""The reader's cheaper paths give the same answers as the plain ones they replaced."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.render import DieSpec, render
from vision import Verdict, faces, read_dice
from vision.bodies import _floored_median_multiple, measure_die_size, segment
from vision.darkpips import _ONE_ANGLES
from vision.faces import _patch, motion_smear
from vision.layout import LAYOUTS, _skew, fit_layout, skew_of
from vision.lightface import outside
from vision.pips import Candidates, _diameters, sample
from vision.pipshape import INNER, PATCH, PIP_R, _median_u8, face_patch, pip_moments, squash_of
from vision.rim import face_extent, first_extent, medians_without
from vision.scene import _MEDIAN_ABS, _NOISE_MASK, noise_sigma
from vision.silhouette import DARK_BODY, DARK_SLACK, SAME_HUE, SHADE, WINDOW, Silhouette
from vision.spots import one_per_spot


def test_closed_form_skew_matches_least_squares() -> None:
    rng = np.random.default_rng(0)
    for n in (4, 5, 6):
        for _ in range(20):
            cells = rng.integers(-1, 2, (n, 2))
            rel = cells * 10.0 + rng.normal(0.0, 1.0, (n, 2))
            c = cells.astype(np.float64)
            if np.linalg.matrix_rank(c) < 2:
                assert _skew(rel, cells) == 1.0
                continue
            m, *_ = np.linalg.lstsq(c, rel, rcond=None)
            sv = np.linalg.svd(m, compute_uv=False)
            assert _skew(rel, cells) == pytest.approx(sv[0] / sv[1], rel=1e-9)


def test_motion_smear_matches_per_direction_percentiles() -> None:
    frame = render([DieSpec(5, (300, 220), angle=17)], seed=2)
    patch_side = 40.0
    # The old formulation: eight percentile calls over the same derivatives.
    patch, _ = _patch(frame, (300.0, 220.0), 1.2 * patch_side, 0.0, 1.0)
    lum = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(lum, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1)
    steep = [float(np.percentile(np.abs(gx * np.cos(p) + gy * np.sin(p)), 99.5)) for p in np.arange(8) * np.pi / 8]
    assert motion_smear(frame, (300.0, 220.0), patch_side) == pytest.approx(max(steep) / min(steep), rel=1e-5)


def _smear_by_partition(frame: np.ndarray, centre: tuple[float, float], side: float) -> float:
    """faces.motion_smear's first form: every pixel's derivative in each direction, one partition of them."""
    patch, _ = _patch(frame, centre, 1.2 * side, 0.0, 1.0)
    lum = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 1, 0), dtype=np.float32)
    gy = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 0, 1), dtype=np.float32)
    phi = np.arange(8) * np.pi / 8
    der = np.abs(np.cos(phi)[:, None] * gx.ravel()[None, :] + np.sin(phi)[:, None] * gy.ravel()[None, :])
    pos = 0.995 * (der.shape[1] - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, der.shape[1] - 1)
    part = np.partition(der, (lo, hi), axis=1)
    steep = part[:, lo] + (pos - lo) * (part[:, hi] - part[:, lo])
    return float(steep.max()) / max(float(steep.min()), 1e-6)


def test_motion_smear_from_the_steepest_pixels_is_its_first_form(monkeypatch: pytest.MonkeyPatch) -> None:
    ranked = {"steepest": 0, "all": 0}
    steepest = faces._ranked_steepest

    def counted(*args: Any) -> Any:
        out = steepest(*args)
        ranked["all" if out is None else "steepest"] += 1
        return out

    monkeypatch.setattr(faces, "_ranked_steepest", counted)
    rng = np.random.default_rng(9)
    for k in range(60):
        frame = render([DieSpec(k % 6 + 1, (250, 220), angle=float(rng.uniform(0, 90)),
                                size=float(rng.uniform(25, 60)))], seed=k)
        if k % 2:  # smeared along a row: one direction's edges soft, where the steepest pixels may not tell
            n = int(rng.integers(2, 15))
            kernel = np.zeros((n, n), np.float32)
            kernel[n // 2, :] = 1.0 / n
            frame = np.asarray(cv2.filter2D(frame, -1, kernel), np.uint8)
        side = float(rng.uniform(20, 70))
        assert motion_smear(frame, (250.0, 220.0), side) == _smear_by_partition(frame, (250.0, 220.0), side)
    assert ranked["steepest"] >= 20 and ranked["all"] >= 5  # (both ways were taken)


def test_a_frame_wide_blob_is_not_taken_for_the_die_size() -> None:
    # A light sheet over most of the frame plus two dice: the sheet is one compact blob, wider than any die.
    mask = np.zeros((480, 640), np.uint8)
    mask[20:460, 40:600] = 255
    assert measure_die_size(mask, 30.0) is None
    mask[:] = 0
    mask[100:140, 100:140] = 255
    mask[300:340, 400:440] = 255
    assert measure_die_size(mask, 30.0) == pytest.approx(40.0, abs=1.0)


def test_big_dice_segmented_at_half_scale_are_found_and_read() -> None:
    # 80 px dice (a higher-resolution camera): the foreground mask is computed at half scale.
    frame = render([DieSpec(3, (400, 300), size=80.0, angle=10), DieSpec(6, (900, 500), size=80.0, angle=50)],
                   size=(1280, 960), seed=5)
    seg = segment(frame)
    assert len(seg.bodies) == 2
    assert 60.0 < seg.die_size < 100.0
    r = read_dice(frame)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(v for v in r.values if v is not None) == [3, 6]


def _one_per_spot_brute(c: Candidates) -> Candidates:
    """The n x n formulation the sweep replaced."""
    order = np.argsort(-c.peak, kind="stable")
    xy, rad = c.xy[order], c.radius[order]
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    close = d < np.maximum(2.5, 1.2 * np.maximum(rad[:, None], rad[None, :]))
    np.fill_diagonal(close, False)
    keep = np.ones(len(c), bool)
    for a in np.nonzero(close.any(axis=1))[0]:
        if keep[a]:
            keep[a + 1:] &= ~close[a, a + 1:]
    return c.take(order[keep])


def test_one_spot_per_pip_sweep_matches_the_full_distance_matrix() -> None:
    rng = np.random.default_rng(1)
    for _ in range(100):
        n = int(rng.integers(2, 300))
        xy = np.round(rng.uniform(0.0, 100.0, (n, 2)))
        c = Candidates(xy, rng.integers(10, 60, n).astype(np.float64), rng.uniform(0.5, 5.0, n), np.ones(n),
                       np.zeros(n, np.int64), True)
        fast, brute = one_per_spot(c), _one_per_spot_brute(c)
        assert np.array_equal(fast.xy, brute.xy) and np.array_equal(fast.peak, brute.peak)


def test_first_extent_matches_face_extent_tried_angle_by_angle() -> None:
    frame = render([DieSpec(1, (200, 200), angle=20), DieSpec(3, (420, 260), angle=65)], seed=7)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    hits = 0
    for centre in ((200.0, 200.0), (420.0, 260.0), (300.0, 120.0), (203.0, 198.0)):
        for g in (8.0, 10.4, 13.0):
            expected = next((i for i, th in enumerate(_ONE_ANGLES)
                             if face_extent(gray, centre, g, float(th), 150.0, 5.0) is not None), None)
            assert first_extent(gray, centre, g, _ONE_ANGLES, 150.0, 5.0) == expected
            hits += expected is not None
    assert hits > 0  # the lone pip's die is found at some pitch: both paths were exercised


def test_fit_without_skew_then_skew_of_and_empty_cells_match_the_full_fit() -> None:
    rng = np.random.default_rng(3)
    fitted = 0
    for _ in range(300):
        n = int(rng.integers(2, 7))
        options = LAYOUTS[n]
        lay = list(options[int(rng.integers(len(options)))])
        th, g = rng.uniform(0.0, np.pi), rng.uniform(5.0, 15.0)
        rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        pts = (np.array(lay, np.float64) * g) @ rot.T + rng.normal(0.0, 1.0, (n, 2)) + 100.0
        full, lazy = fit_layout(pts), fit_layout(pts, with_skew=False)
        if full.value is None:
            continue
        fitted += 1
        assert skew_of(lazy, pts) == full.skew
        cells = full.cells()
        old = np.array([cells[v + 1, u + 1] for u in (-1, 0, 1) for v in (-1, 0, 1)
                        if (u, v) not in full.occupied]).reshape(-1, 2)
        assert np.array_equal(full.empty_cells(), old)
    assert fitted > 200


def test_floored_median_multiple_equals_the_plain_formula() -> None:
    rng = np.random.default_rng(4)
    for _ in range(500):
        n = int(rng.integers(1, 200))
        x = rng.exponential(rng.uniform(0.5, 8.0), n).astype(np.float32)
        for k, floor in ((6.0, 10.0), (8.0, 40.0)):
            assert _floored_median_multiple(x, k, floor) == max(floor, k * float(np.median(x)))


def test_calibrated_count_met_by_the_grey_pass_skips_the_other_planes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibrated, both dice found by the grey pip-first pass: the inverted planes (and the body pass) are
    not read, and the throw is read right. Uncalibrated, all four planes are read."""
    import vision.reader as reader
    from tests.vision.simthrows import count_calls, sim_throw

    frame, cal, truth = sim_throw("ok", 2)
    calls = count_calls(monkeypatch, reader, "light_pass")
    fast = read_dice(frame, calibration=cal, expect=2)
    assert len(calls) == 1
    assert fast.verdict is Verdict.OK
    assert sorted(fast.values) == sorted(truth.values)  # type: ignore[type-var]
    read_dice(frame, expect=2)
    assert len(calls) == 1 + 4


def _fit_layout_numpy(pts: np.ndarray) -> tuple[int | None, str, frozenset[tuple[int, int]], tuple[float, ...]]:
    """fit_layout as it was written in numpy (before its plain-float form): value, reason, cells and
    (resid, pitch, angle, centre x, centre y) of the fit."""
    from vision.layout import MAX_RESID, MAX_RESID_6, off_grid_reason, small_median

    n = len(pts)
    centre = pts.mean(axis=0)
    cxy = (float(centre[0]), float(centre[1]))
    if n > 6:
        return None, f"{n} pip-like spots, not a d6 face", frozenset(), (1.0, 0.0, 0.0, *cxy)
    if n == 1:
        return 1, "", frozenset({(0, 0)}), (0.0, 0.0, 0.0, *cxy)
    rel = pts - centre
    dist = np.hypot(rel[:, 0], rel[:, 1])
    far = dist > 0.8 * dist.max()
    if not far.any() or dist.max() <= 0:
        return None, "degenerate pip layout", frozenset(), (1.0, 0.0, 0.0, *cxy)
    ang = np.arctan2(rel[far, 1], rel[far, 0])
    theta = float(np.angle(-np.sum(np.exp(4j * ang)))) / 4.0
    g = small_median(dist[far]) / np.sqrt(2.0)
    best: tuple[int | None, str, frozenset[tuple[int, int]], tuple[float, ...]] = (
        None, "pips do not form a d6 layout", frozenset(), (1.0, g, theta, *cxy))
    for _ in range(3):
        c, s = np.cos(theta), np.sin(theta)
        rot = rel @ np.array([[c, -s], [s, c]])
        q = rot / g
        cells = np.rint(q).astype(np.int64)
        if np.any(np.abs(cells) > 1):
            break
        resid = float(np.max(np.hypot(*(q - cells).T)))
        cellset = frozenset((int(u), int(v)) for u, v in cells)
        if len(cellset) == n and cellset in LAYOUTS[n]:
            if resid < (MAX_RESID_6 if n == 6 else MAX_RESID):
                best = (n, "", cellset, (resid, g, theta, *cxy))
                if resid < 0.08:
                    break
            elif best[0] is None:
                best = (None, off_grid_reason(rel, cells, n), frozenset(), (resid, g, theta, *cxy))
        tgt = cells.astype(np.float64)
        num = float(np.sum(tgt[:, 0] * rot[:, 1] - tgt[:, 1] * rot[:, 0]))
        den = float(np.sum(tgt[:, 0] * rot[:, 0] + tgt[:, 1] * rot[:, 1]))
        if den <= 0:
            break
        theta -= float(np.arctan2(num, den))
        g = float(np.hypot(num, den) / max(1e-9, float(np.sum(tgt ** 2))))
    return best


def test_plain_float_fit_layout_matches_its_numpy_form() -> None:
    rng = np.random.default_rng(11)
    fitted = refused = 0
    for _ in range(3000):
        n = int(rng.integers(1, 8))
        if n <= 6 and rng.random() < 0.7:
            lay = list(LAYOUTS[n][int(rng.integers(len(LAYOUTS[n])))])
            th, g = rng.uniform(0.0, np.pi), rng.uniform(4.0, 15.0)
            rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
            pts = (np.array(lay, np.float64) * g) @ rot.T + rng.normal(0.0, rng.uniform(0.0, 3.0), (n, 2))
        else:
            pts = rng.uniform(0.0, 40.0, (n, 2))
        pts += rng.uniform(0.0, 600.0, 2)
        value, reason, cells, nums = _fit_layout_numpy(pts)
        fit = fit_layout(pts, with_skew=False)
        assert (fit.value, fit.reason, fit.occupied) == (value, reason, cells)
        assert (fit.resid, fit.grid, fit.theta, *fit.centre) == pytest.approx(nums, rel=1e-12, abs=1e-12)
        fitted += value is not None
        refused += value is None
    assert fitted > 1000 and refused > 500  # both outcomes exercised


def test_medians_without_match_nanmedian() -> None:
    rng = np.random.default_rng(3)
    for _ in range(3000):
        t, p = int(rng.integers(1, 9)), int(rng.integers(1, 30))
        vals = rng.uniform(0, 255, (t, p))
        if rng.uniform() < 0.5:
            vals = np.round(vals)  # ties, as grey levels give
        skip = rng.uniform(size=(t, p)) < rng.uniform()
        skip[np.arange(t), rng.integers(0, p, t)] = False  # every row keeps a point
        want = np.nanmedian(np.where(skip, np.nan, vals), axis=1)
        assert np.array_equal(medians_without(vals, skip), want)


def _silhouette_by_isin(bgr: np.ndarray, centre: tuple[float, float], side: float, body_points: np.ndarray,
                        colour: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Silhouette.of's masks as first written: the reductions over the colour axis and np.isin on the labels."""
    h, w = bgr.shape[:2]
    r = int(np.ceil(WINDOW * side)) + 2
    x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
    x1, y1 = min(w, int(centre[0]) + r + 1), min(h, int(centre[1]) + r + 1)
    win = bgr[y0:y1, x0:x1].astype(np.float32)
    body = np.array(colour, np.float32)
    if float(body.max()) < DARK_BODY:
        like = np.asarray(win.max(axis=2) <= float(body.max()) + DARK_SLACK, np.uint8)
    else:
        bb = float(body @ body)
        dot = win @ body
        shade = dot / bb
        cos = dot / (np.sqrt((win * win).sum(axis=2) * bb) + 1e-6)
        like = np.asarray((cos >= SAME_HUE) & (shade >= SHADE[0]) & (shade <= SHADE[1]), np.uint8)
    _, labels = cv2.connectedComponents(like, connectivity=8)
    local = body_points - np.array([x0, y0], np.float64)
    seeds = sample(labels.astype(np.float32), local).astype(np.int64)
    seeds = seeds[(seeds > 0) & (sample(like, local) > 0)]
    die = np.isin(labels, np.unique(seeds))
    _, rest = cv2.connectedComponents((~die).astype(np.uint8), connectivity=4)
    border = np.unique(np.concatenate([rest[0], rest[-1], rest[:, 0], rest[:, -1]]))
    holes = ~die & ~np.isin(rest, border)
    return np.asarray(die | holes, np.uint8), np.asarray(holes, np.uint8)


@pytest.mark.parametrize("colour", [(40, 40, 190), (38, 36, 34)])  # a red die, and a dark one (DARK_BODY)
def test_silhouette_matches_its_first_form(colour: tuple[int, int, int]) -> None:
    rng = np.random.default_rng(4)
    for _ in range(40):
        # Every pixel either any colour or a shade of the die's (a quarter to four and a half times it, with
        # noise): pixels on both sides of every bound, and ragged regions, holes and all.
        h, w = 120, 140
        shade = np.clip(np.array(colour, np.float64) * rng.uniform(0.2, 4.5, (h, w, 1))
                        + rng.normal(0, 6, (h, w, 3)), 0, 255)
        frame = np.where(rng.uniform(size=(h, w, 1)) < 0.45, rng.uniform(0, 256, (h, w, 3)), shade).astype(np.uint8)
        centre = (float(rng.uniform(30, 110)), float(rng.uniform(30, 90)))
        x, y = int(centre[0]), int(centre[1])
        frame[y - 8:y + 9, x - 8:x + 9] = colour
        frame[y - 2:y + 3, x + 2:x + 7] = 240  # a pip: a hole
        pts = np.array(centre) + rng.uniform(-6, 6, (9, 2))
        got = Silhouette.of(frame, centre, 25.0, pts, colour)
        assert got is not None
        filled, holes = _silhouette_by_isin(frame, centre, 25.0, pts, colour)
        assert np.array_equal(got.filled, filled) and np.array_equal(got.holes, holes)
        assert holes.any() and filled.mean() < 0.9  # (not the whole window)


def test_outside_measures_the_distance_to_a_convex_hull() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        hull = cv2.convexHull(rng.uniform(0, 60, (8, 2)).astype(np.float32)).reshape(-1, 2).astype(np.float64)
        pts = rng.uniform(-20, 80, (50, 2))
        want = [max(0.0, -cv2.pointPolygonTest(hull.astype(np.float32), (float(x), float(y)), True)) for x, y in pts]
        assert outside(pts, hull) == pytest.approx(want, abs=1e-3)


def _pip_moments_first_form(bgr: np.ndarray, centre: tuple[float, float], side: float, theta: float,
                            light: bool) -> tuple[np.ndarray, int, float, float]:
    """vision/pipshape.py pip_moments as first written (after the patch, which is made as it was): the whole
    patch in float, np.median, the core's pips labelled in a patch of zeros."""
    n = PATCH
    g = face_patch(bgr, centre, side, theta, light).astype(np.float32)
    lo, hi = int(np.ceil(n / 2 - INNER * n)), int(np.floor(n / 2 + INNER * n))
    core = np.s_[lo:hi + 1, lo:hi + 1]
    body = float(np.median(g[core]))
    dark = np.clip(body - g, 0.0, None)
    split, _ = cv2.threshold(np.clip(dark[core], 0, 255).astype(np.uint8), 0, 255,
                             cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(float(split), 20.0)
    inside = np.zeros((n, n), np.uint8)
    inside[core] = dark[core] > thr
    _, labels, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=8)
    a_min, a_max = np.pi * (PIP_R[0] * n) ** 2, np.pi * (PIP_R[1] * n) ** 2
    shape, count, roundest = np.zeros((2, 2)), 0, 0.0
    bx, by, bw, bh, areas = (stats[:, j] for j in range(5))
    pips = np.flatnonzero((areas >= a_min) & (areas <= a_max) & (bx > lo) & (by > lo) & (bx + bw - 1 < hi)
                          & (by + bh - 1 < hi))
    for i in pips[pips > 0]:
        roi = np.s_[int(by[i]):int(by[i] + bh[i]), int(bx[i]):int(bx[i] + bw[i])]
        mo = cv2.moments(np.where(labels[roi] == i, dark[roi] - thr / 2, 0.0).astype(np.float32))
        cov = np.array([[mo["mu20"], mo["mu11"]], [mo["mu11"], mo["mu02"]]]) / mo["m00"]
        det = float(np.linalg.det(cov))
        if det > 0.0:
            shape += cov / np.sqrt(det)
            count += 1
            roundest = max(roundest, squash_of(cov))
    return (shape / count if count else shape), count, roundest, body


def test_pip_moments_match_their_first_form() -> None:
    rng = np.random.default_rng(6)
    looks = [((235, 238, 240), (25, 25, 25)), ((40, 38, 36), (245, 245, 245)), ((60, 60, 200), (240, 240, 240))]
    measured = 0
    for k in range(36):
        body, pip = looks[k % 3]
        angle, squash = float(rng.uniform(0, 90)), float(rng.choice([1.0, 0.8, 0.6]))
        frame = render([DieSpec(k % 6 + 1, (250, 220), angle=angle, squash=squash, body=body, pip=pip)], seed=k)
        centre = (250.0 + float(rng.uniform(-3, 3)), 220.0 + float(rng.uniform(-3, 3)))
        for light in (False, True):
            side = float(rng.uniform(36, 60))
            got = pip_moments(frame, centre, side, np.radians(angle), light=light)
            shape, count, roundest, grey = _pip_moments_first_form(frame, centre, side, np.radians(angle), light)
            assert np.array_equal(got.shape, shape) and got.count == count
            assert got.roundest == roundest and got.body == grey
            measured += count > 0
    assert measured >= 30  # (pips were measured, not only blank faces compared)


def test_the_median_of_uint8_values_is_numpys() -> None:
    rng = np.random.default_rng(8)
    for n in (1, 2, 3, 10, 77 * 77, 1000):
        px = rng.integers(0, 256, n).astype(np.uint8)
        assert _median_u8(px) == float(np.median(px.astype(np.float32)))


def test_noise_sigma_matches_its_first_form() -> None:
    rng = np.random.default_rng(10)
    base = cv2.cvtColor(render([DieSpec(6, (200, 180)), DieSpec(2, (430, 300), angle=30)], seed=1), cv2.COLOR_BGR2GRAY)
    for sd in (0.0, 2.0, 6.0, 20.0, 150.0):  # (the last: a median past 255, counted by numpy as before)
        gray = np.clip(base + rng.normal(0, sd, base.shape), 0, 255).astype(np.uint8)
        half = np.ascontiguousarray(gray[::2, ::2])
        r = cv2.filter2D(half, cv2.CV_16S, _NOISE_MASK, borderType=cv2.BORDER_REPLICATE)
        counts = np.bincount(np.abs(r[1:-1, 1:-1]).ravel())
        median = int(np.searchsorted(np.cumsum(counts), (int(counts.sum()) + 1) // 2))
        assert noise_sigma(gray) == median / _MEDIAN_ABS
    assert median >= 255


def test_spot_diameters_column_by_column_are_the_reductions() -> None:
    rng = np.random.default_rng(11)
    for r in (3, 5, 8, 12):
        # Half-widths as detect makes them (a ray's first radius below half the peak plus a half, or r + 1),
        # few distinct values, so that diameters tie.
        first = np.where(rng.uniform(size=(500, 8)) < 0.9, rng.integers(0, r, (500, 8)) + 0.5, r + 1.0)
        diam = first[:, :4] + first[:, 4:]
        radius, elong, axis = _diameters(first)
        assert np.array_equal(radius, diam.mean(axis=1) / 2.0)
        assert np.array_equal(elong, np.maximum.reduce(diam, axis=1)
                              / np.maximum(np.minimum.reduce(diam, axis=1), 1e-6))
        assert np.array_equal(axis, diam.argmax(axis=1)) and axis.dtype == np.int64
        assert (diam == diam.max(axis=1, keepdims=True)).sum(axis=1).max() > 1  # (ties were there to break)
