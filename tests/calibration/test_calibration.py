"""Calibration round trips on rendered boards: markers at several camera angles -> polygon near the truth."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import fit, io
from calibration.markers import BOARD_IDS, TRAY_IDS, detect_markers, marker_image, sheet_image
from calibration.model import Calibration, CalibrationError

CANVAS = 1400
BOARD = (200.0, 1200.0)  # the board square on the flat canvas: x0 = y0 = 200, x1 = y1 = 1200
MARKER = 84
QUIET = 14  # white margin left around a cut-out marker


def _paste_marker(canvas: np.ndarray, marker_id: int, corner: tuple[float, float], outward: tuple[int, int],
                  turns: int) -> None:
    """Place a marker outside `corner`, the corner of its black square on the board corner, turned by
    90 degrees x turns. Its white paper margin lies partly on the board, as a cut-out marker would."""
    m = np.rot90(marker_image(marker_id, MARKER), turns)
    x, y = int(corner[0]), int(corner[1])
    x0 = x if outward[0] > 0 else x - MARKER
    y0 = y if outward[1] > 0 else y - MARKER
    canvas[y0 - QUIET:y0 + MARKER + QUIET, x0 - QUIET:x0 + MARKER + QUIET] = 255
    canvas[y0:y0 + MARKER, x0:x0 + MARKER] = m[..., None]


def flat_table(rng: np.random.Generator, tray: bool = False, skip: tuple[int, ...] = (),
               swap: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A flat top view: table, board with a printed border, corner markers. Returns the board corners too."""
    canvas = np.empty((CANVAS, CANVAS, 3), np.uint8)
    canvas[:] = (60, 90, 130)
    a, b = BOARD
    cv2.rectangle(canvas, (int(a), int(a)), (int(b) - 1, int(b) - 1), (205, 228, 210), -1)
    cv2.rectangle(canvas, (int(a) + 130, int(a) + 130), (int(b) - 130, int(b) - 130), (30, 30, 30), 3)
    for k in range(10):
        cv2.line(canvas, (int(a) + 130 + 74 * k, int(a)), (int(a) + 130 + 74 * k, int(a) + 130), (30, 30, 30), 2)
    corners = np.array([[a, a], [b, a], [b, b], [a, b]])
    outward = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    ids = list(BOARD_IDS)
    if swap:
        ids[1], ids[2] = ids[2], ids[1]
    for k, marker_id in enumerate(ids):
        if marker_id not in skip:
            _paste_marker(canvas, marker_id, (corners[k][0], corners[k][1]), outward[k], int(rng.integers(4)))
    tray_corners = None
    if tray:
        t0, t1 = 500.0, 800.0
        cv2.rectangle(canvas, (int(t0), int(t0)), (int(t1), int(t1)), (20, 20, 20), -1)
        cv2.rectangle(canvas, (int(t0) + 12, int(t0) + 12), (int(t1) - 12, int(t1) - 12), (235, 235, 235), -1)
        tray_corners = np.array([[t0, t0], [t1, t0], [t1, t1], [t0, t1]])
        for k, marker_id in enumerate(TRAY_IDS):
            if marker_id not in skip:
                _paste_marker(canvas, marker_id, (tray_corners[k][0], tray_corners[k][1]), outward[k],
                              int(rng.integers(4)))
    return canvas, corners, tray_corners


def camera_homography(tilt_deg: float, yaw_deg: float, roll_deg: float, out: tuple[int, int],
                      distance: float = 2200.0) -> np.ndarray:
    """Homography canvas -> image of a pinhole camera looking at the canvas centre from a tilted pose."""
    w, h = out
    f = 0.9 * w
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    t, y, r = (math.radians(v) for v in (tilt_deg, yaw_deg, roll_deg))
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rr = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rot = rr @ rx @ rz
    # canvas point (u, v) -> world (u - c, v - c, 0); camera at distance along its optical axis
    c = CANVAS / 2
    shift = np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1]])
    extr = np.column_stack([rot[:, 0], rot[:, 1], np.array([0, 0, distance])])
    return k @ extr @ shift


def photograph(canvas: np.ndarray, hom: np.ndarray, out: tuple[int, int], rng: np.random.Generator,
               lens: float = 0.7) -> np.ndarray:
    """`canvas` as a camera at `hom` takes it: warped, its lens's blur (sigma, px), sensor noise."""
    img = cv2.warpPerspective(canvas, hom, out, flags=cv2.INTER_LINEAR, borderValue=(50, 70, 100))
    img = cv2.GaussianBlur(img, (3, 3), lens)
    noise = rng.normal(0, 3.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _warp(points: np.ndarray, hom: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points[None].astype(np.float64), hom)[0]


def _true_corners(corners: np.ndarray, hom: np.ndarray) -> list[tuple[float, float]]:
    """Where the board corners land in the photo. Pixel centres are integers in OpenCV, so the edge
    between canvas pixels 199 and 200 (the board's top-left corner at a = 200) is at 199.5."""
    return [(float(x), float(y)) for x, y in _warp(corners - 0.5, hom)]


ANGLES = [(0, 0, 0), (20, 15, 0), (35, -30, 5), (30, 120, -8), (45, 200, 10), (25, 275, 90)]


@pytest.mark.parametrize("tilt,yaw,roll", ANGLES)
@pytest.mark.parametrize("out", [(1280, 960), (640, 480)])
def test_board_polygon_round_trip(tilt: float, yaw: float, roll: float, out: tuple[int, int]) -> None:
    if out[0] < 1000 and tilt >= 45:
        # Measured: at 640x480 the 4x4 markers are ~25 px and at 45 degrees too foreshortened for ArUco;
        # calibrate at the sensor's full resolution (the calibration rescales to the watching resolution).
        pytest.skip("markers too small to detect at 640x480 and 45 degrees tilt (known limit)")
    rng = np.random.default_rng(int(tilt * 1000 + yaw + out[0]))
    canvas, corners, _ = flat_table(rng)
    hom = camera_homography(tilt, yaw, roll, out)
    image = photograph(canvas, hom, out, rng)
    cal = fit.from_markers(image)
    err = fit.polygon_error(cal.board_polygon, _true_corners(corners, hom))
    # Sub-pixel corner refinement: well inside "a few pixels", relative to the markers' size on screen.
    print(f"tilt {tilt} yaw {yaw} roll {roll} {out}: worst corner error {err:.2f} px")
    assert err < (1.0 if out[0] >= 1280 else 2.0), f"corner error {err:.2f} px"
    assert cal.source == "markers" and cal.image_size == out
    # The homography maps the found corners onto the board square in millimetres.
    assert cal.homography is not None
    back = _warp(np.array(cal.board_polygon), np.array(cal.homography))
    assert np.allclose(back, [[0, 0], [508, 0], [508, 508], [0, 508]], atol=0.05)  # polygon kept to 0.01 px
    # Expected die size from the geometry: a 16 mm die on the true board, measured through the true camera.
    a, b = BOARD
    half = 16.0 / 508.0 * (b - a) / 2
    mid = (a + b) / 2
    die = _warp(-0.5 + np.array([[mid - half, mid - half], [mid + half, mid - half], [mid + half, mid + half],
                          [mid - half, mid + half]]), hom)
    true_side = float(np.mean(np.linalg.norm(die - np.roll(die, 1, axis=0), axis=1)))
    assert cal.die_size_px == pytest.approx(true_side, rel=0.03)


def test_tray_polygon_for_catan() -> None:
    rng = np.random.default_rng(7)
    canvas, _, tray = flat_table(rng, tray=True)
    assert tray is not None
    out = (1280, 960)
    hom = camera_homography(25, 40, 0, out)
    cal = fit.from_markers(photograph(canvas, hom, out, rng))
    assert cal.tray_polygon is not None
    assert fit.polygon_error(cal.tray_polygon, _true_corners(tray, hom)) < 1.0
    assert cal.play_polygon == cal.tray_polygon
    with pytest.raises(CalibrationError, match="tray"):
        fit.from_markers(photograph(flat_table(rng, skip=())[0], hom, out, rng), tray=True)


def test_missing_markers_are_refused_by_name() -> None:
    rng = np.random.default_rng(3)
    out = (1280, 960)
    hom = camera_homography(20, 10, 0, out)
    canvas, _, _ = flat_table(rng, skip=(1, 3))
    with pytest.raises(CalibrationError, match=r"1 \(board top-right\), 3 \(board bottom-left\); markers found: 0, 2"):
        fit.from_markers(photograph(canvas, hom, out, rng))
    partial_tray, _, _ = flat_table(rng, tray=True, skip=(6,))
    with pytest.raises(CalibrationError, match=r"6 \(tray bottom-right"):
        fit.from_markers(photograph(partial_tray, hom, out, rng))
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="no calibration markers"):
        fit.from_markers(blank)


def test_swapped_markers_are_refused() -> None:
    rng = np.random.default_rng(4)
    out = (1280, 960)
    canvas, _, _ = flat_table(rng, swap=True)
    with pytest.raises(CalibrationError, match="not where their ids say"):
        fit.from_markers(photograph(canvas, camera_homography(15, 0, 0, out), out, rng))


def test_from_corners_in_any_click_order() -> None:
    pts = [(500.0, 420.0), (90.0, 60.0), (110.0, 440.0), (560.0, 40.0)]
    cal = fit.from_corners(pts, (640, 480))
    assert cal.board_polygon == ((90.0, 60.0), (560.0, 40.0), (500.0, 420.0), (110.0, 440.0))
    assert cal.source == "corners"
    assert cal.die_size_px is not None and 10 < cal.die_size_px < 16  # 16/508 of a ~420 px board
    with pytest.raises(CalibrationError, match="outside"):
        fit.from_corners([(0, 0), (700, 0), (600, 400), (0, 400)], (640, 480))
    with pytest.raises(CalibrationError, match="four"):
        fit.from_corners([(0, 0), (100, 0), (100, 100)], (640, 480))
    with pytest.raises(CalibrationError, match="line"):
        fit.from_corners([(0, 0), (100, 0), (200, 0), (300, 0.5)], (640, 480))


def test_die_appearance_from_a_calibration_throw() -> None:
    img = np.full((200, 300, 3), (200, 228, 212), np.uint8)
    quads = []
    for cx, cy in ((80, 100), (200, 90)):
        box = cv2.boxPoints(((cx, cy), (40, 40), 20.0))
        cv2.fillPoly(img, [box.astype(np.int32)], (238, 240, 242))
        for dx, dy in ((-9, -9), (0, 0), (9, 9)):
            cv2.circle(img, (cx + dx, cy + dy), 4, (25, 25, 30), -1)
        quads.append([tuple(map(float, p)) for p in box])
    side, body, pip = fit.sample_die_appearance(img, quads)
    assert side == pytest.approx(40, abs=1)
    assert all(abs(a - b) <= 3 for a, b in zip(body, (238, 240, 242), strict=True))
    assert all(abs(a - b) <= 12 for a, b in zip(pip, (25, 25, 30), strict=True))
    cal = fit.from_corners([(10, 10), (290, 10), (290, 190), (10, 190)], (300, 200), board_mm=200, die_mm=28)
    sampled = fit.with_dice_sample(cal, img, quads)
    assert sampled.die_size_px == pytest.approx(40, abs=1) and sampled.die_color_bgr == body
    with pytest.raises(CalibrationError, match="should be"):
        fit.with_dice_sample(fit.from_corners([(10, 10), (290, 10), (290, 190), (10, 190)], (300, 200)),
                             img, quads)


def test_corners_clicked_again_keep_what_the_corners_do_not_say() -> None:
    """The clerk clicks the board's corners again on the camera's own frames (640x480) after a calibration
    from a larger still (1280x960), with a 400 mm board, 19 mm dice measured 1.2 times what the board's
    geometry gives on a calibration throw, red dice, a lens of 53 degrees and a dice tray. The new corners
    are the old ones at half size, the camera nudged: everything but the corners carries over, the die's
    size with the board's and the tray across the board's plane."""
    big = [(100.0, 80.0), (1180.0, 90.0), (1170.0, 900.0), (110.0, 890.0)]
    old = fit.from_corners(big, (1280, 960), board_mm=400.0, die_mm=19.0)
    assert old.die_size_px is not None
    tray = ((1190.0, 300.0), (1270.0, 300.0), (1270.0, 420.0), (1190.0, 420.0))
    old = fit.with_lens(replace(old, tray_polygon=tray, die_size_px=1.2 * old.die_size_px,
                                die_color_bgr=(40, 40, 190), pip_color_bgr=(245, 245, 245),
                                extra={**old.extra, "die_size_from": "2 dice of a calibration throw",
                                       "die_size_geometry_px": old.die_size_px}), 53.0)
    nudged = [(x / 2 + 3.0, y / 2 - 2.0) for x, y in big]
    new = fit.from_corners_again(old, nudged, (640, 480))
    plain = fit.from_corners(nudged, (640, 480), board_mm=400.0, die_mm=19.0)
    assert new.image_size == (640, 480) and new.source == "corners"
    assert new.board_polygon == plain.board_polygon and new.homography == plain.homography
    assert new.extra["board_mm"] == 400.0 and new.extra["die_mm"] == 19.0
    assert plain.die_size_px is not None and new.die_size_px == pytest.approx(1.2 * plain.die_size_px, abs=0.02)
    assert (new.die_color_bgr, new.pip_color_bgr) == ((40, 40, 190), (245, 245, 245))
    assert new.extra["hfov_deg"] == 53.0 and new.focal_px == pytest.approx(320.0 / math.tan(math.radians(26.5)),
                                                                            abs=0.01)
    assert new.tray_polygon is not None
    assert np.allclose(new.tray_polygon, [(x / 2 + 3.0, y / 2 - 2.0) for x, y in tray], atol=0.6)
    # Frames of another shape (16:9) show another part of the sensor: the lens is not carried across, the
    # rest is.
    wide = fit.from_corners_again(old, [(x / 2, y * 0.375) for x, y in big], (640, 360))
    assert wide.focal_px is None and "hfov_deg" not in wide.extra and "1280x960" in wide.extra["lens_dropped"]
    assert wide.die_color_bgr == (40, 40, 190) and wide.extra["die_mm"] == 19.0 and wide.tray_polygon
    # A calibration that knew none of it: the corners alone, as from_corners gives them.
    bare = fit.from_corners(big, (1280, 960))
    assert fit.from_corners_again(bare, nudged, (640, 480)) == fit.from_corners(nudged, (640, 480))
    assert fit.from_corners_again(None, nudged, (640, 480)) == fit.from_corners(nudged, (640, 480))


def test_a_calibration_is_for_frames_of_its_own_shape() -> None:
    """Scaled to frames of its shape at any size (a Camera Module 2's 1640x1232 binned mode for a 1280x960
    still is one shape, within ASPECT_SLACK); refused for another shape, which shows another part of the
    table (a 16:9 still of a sensor whose 4:3 frames crop its sides)."""
    cal = fit.from_corners([(100.0, 80.0), (1180.0, 80.0), (1180.0, 880.0), (100.0, 880.0)], (1280, 960))
    for ok in ((1280, 960), (640, 480), (1640, 1232), (2592, 1944)):
        cal.check_frame(ok)
    assert cal.play_polygon_in((640, 480)) == ((50.0, 40.0), (590.0, 40.0), (590.0, 440.0), (50.0, 440.0))
    for other in ((1280, 720), (1920, 1080), (960, 960), (960, 1280)):
        with pytest.raises(CalibrationError, match=f"1280x960 frames and this one is {other[0]}x{other[1]}"):
            cal.check_frame(other)


def test_file_round_trip_and_errors(tmp_path: Path) -> None:
    cal = fit.from_corners([(10, 10), (600, 20), (620, 470), (5, 460)], (640, 480))
    path = io.save(cal, tmp_path / "sub" / "table.json")
    assert io.load(path) == cal
    assert json.loads(path.read_text())["version"] == 1
    with pytest.raises(CalibrationError, match="no calibration file"):
        io.load(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text('{"format": "tableside-calibration", "version": 99}')
    with pytest.raises(CalibrationError, match="version 99"):
        io.load(tmp_path / "bad.json")
    assert isinstance(io.load(path), Calibration)


def test_sheet_png_has_all_markers_and_pdf_is_a4(tmp_path: Path) -> None:
    page = sheet_image(dpi=150)
    assert sorted(detect_markers(page)) == sorted(BOARD_IDS + TRAY_IDS)
    io.write_sheet(tmp_path / "sheet.png", page, 150)
    assert cv2.imread(str(tmp_path / "sheet.png")).shape[:2] == page.shape
    pdf = io.write_sheet(tmp_path / "sheet.pdf", page, 150).read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    h, w = page.shape
    assert f"/MediaBox [0 0 {w * 72 / 150:.2f} {h * 72 / 150:.2f}]".encode() in pdf
    assert abs(w * 72 / 150 - 595.3) < 1 and abs(h * 72 / 150 - 841.9) < 1  # A4 in points
    with pytest.raises(CalibrationError, match=r"pdf or \.png"):
        io.write_sheet(tmp_path / "sheet.txt", page, 150)


def test_cli_calibrate_writes_the_file_and_refuses_without_markers(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tableside.cli import main

    rng = np.random.default_rng(11)
    out = (1280, 960)
    canvas, corners, _ = flat_table(rng)
    hom = camera_homography(22, 35, 0, out)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), photograph(canvas, hom, out, rng))
    target = tmp_path / "table.json"
    assert main(["calibrate", str(photo), "-o", str(target)]) == 0
    printed = capsys.readouterr().out
    assert "markers: 0, 1, 2, 3" in printed and "board polygon" in printed and "die size" in printed
    # No --hfov: the lens as the board's perspective gives it, 22 degrees off vertical (truly 58.1 across).
    said = printed.split("the board's perspective puts it at ")[1]
    assert 50 <= int(said.split(" degrees")[0]) <= 66 and "pass --hfov DEG" in said, printed
    cal = io.load(target)
    assert fit.polygon_error(cal.board_polygon, _true_corners(corners, hom)) < 1.0

    canvas, _, _ = flat_table(rng, skip=(2,))
    cv2.imwrite(str(photo), photograph(canvas, hom, out, rng))
    assert main(["calibrate", str(photo), "-o", str(tmp_path / "other.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "missing board corner marker(s) 2 (board bottom-right)" in err
    assert not (tmp_path / "other.json").exists()

    assert main(["calibrate", str(tmp_path / "nothing.png")]) == 2
    assert "no image at" in capsys.readouterr().err


def test_cli_calibrate_from_the_tables_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tableside calibrate --source SPEC` takes the frame from the table's camera as `tableside run` opens it
    (here a folder of frames, the last of the first SETTLE_FRAMES), so the calibration is made on the frames the
    unit reads; a photo and a camera together, or neither, or the simulated camera, are refused in one line."""
    from tableside.cli import main
    from tableside.commands.calibrate import SETTLE_FRAMES

    rng = np.random.default_rng(12)
    out = (1280, 960)
    canvas, corners, _ = flat_table(rng)
    hom = camera_homography(18, 20, 0, out)
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(SETTLE_FRAMES + 3):
        # The camera settling: the first frames dark, as an exposure still coming up (no markers found there).
        shot = photograph(canvas, hom, out, rng)
        cv2.imwrite(str(frames / f"f{i:03d}.png"), shot if i >= SETTLE_FRAMES - 1 else shot // 8)
    target = tmp_path / "table.json"
    assert main(["calibrate", "--source", f"folder:{frames}", "-o", str(target)]) == 0
    captured = capsys.readouterr()
    assert f"frame: 1280x960 from folder:{frames}" in captured.err and "markers: 0, 1, 2, 3" in captured.out
    cal = io.load(target)
    assert cal.image_size == out and fit.polygon_error(cal.board_polygon, _true_corners(corners, hom)) < 1.0
    photo = frames / "f012.png"
    for bad, why in (([str(photo), "--source", f"folder:{frames}"], "one of them"), ([], "one of them"),
                     (["--source", "sim:3"], "simulated camera"),
                     (["--source", f"folder:{tmp_path / 'none'}"], "no folder at")):
        assert main(["calibrate", *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and why in err, err


def test_cli_calibrate_warns_of_dice_smaller_than_the_reader_reads(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A 640x480 camera over a whole real board sees dice of 12-13 px, under the 18 px the reader's enlarging
    (at most twice) brings to its working size: the calibration is written, with a warning that says so and what
    helps (tableside/commands/calibrate.py _small_dice)."""
    from tableside.cli import main
    from tableside.commands.calibrate import _small_dice

    rng = np.random.default_rng(11)
    canvas, _, _ = flat_table(rng)
    out = (1280, 960)
    photo = tmp_path / "table.png"
    small = cv2.resize(photograph(canvas, camera_homography(22, 35, 0, out), out, rng), (640, 480),
                       interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(photo), small)
    assert main(["calibrate", str(photo), "-o", str(tmp_path / "table.json")]) == 0
    printed = capsys.readouterr().out
    warning = [line for line in printed.splitlines() if line.startswith("warning: dice of")]
    assert len(warning) == 1 and "in 640x480 frames are under the 18 px" in warning[0], printed
    assert "closer" in warning[0] and "1280x960" in warning[0]
    cal = io.load(tmp_path / "table.json")
    assert cal.die_size_px is not None and cal.die_size_px < 18
    assert _small_dice(18.0, (640, 480)) == "" and _small_dice(None, (640, 480)) == ""
    assert _small_dice(17.9, (640, 480)).startswith("warning: dice of 17.9 px")


def test_cli_calibrate_measures_the_die_from_a_calibration_throw(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """End to end with the product's reader: the dice of a calibration throw give the die size and the
    die/pip colours (instead of the board-geometry estimate)."""
    from tableside.cli import main
    from tests.vision.render import _face

    rng = np.random.default_rng(12)
    canvas, corners, _ = flat_table(rng)
    side = round((corners[1][0] - corners[0][0]) * 16 / 508)  # a 16 mm die on a 508 mm board
    body, pip = (236, 238, 240), (25, 25, 28)
    for value, (cx, cy) in ((5, (420, 470)), (3, (560, 430))):
        face = _face(value, side, body, pip)
        canvas[cy - side // 2:cy - side // 2 + side, cx - side // 2:cx - side // 2 + side] = face
    out = (1280, 960)
    hom = camera_homography(0, 0, 0, out)
    photo = tmp_path / "throw.png"
    cv2.imwrite(str(photo), photograph(canvas, hom, out, rng))
    target = tmp_path / "table.json"
    assert main(["calibrate", str(photo), "--throw", str(photo), "-o", str(target)]) == 0
    printed = capsys.readouterr().out
    assert "too faint to measure it (a camera near overhead): pass --hfov DEG" in printed, printed  # straight down
    cal = io.load(target)
    assert "calibration throw" in str(cal.extra.get("die_size_from")), printed
    geometric = fit.die_size_from_geometry(np.array(cal.homography), 508, 16)
    assert cal.die_size_px is not None and abs(cal.die_size_px - geometric) / geometric < 0.15
    assert cal.die_color_bgr is not None and min(cal.die_color_bgr) > 180
    assert cal.pip_color_bgr is not None and max(cal.pip_color_bgr) < 110


def _white_throw_photo(body: tuple[int, int, int] = (236, 238, 240), pips: tuple[int, int, int] = (25, 25, 28),
                       lens: float = 0.7, die_mm: float = 16.0) -> np.ndarray:
    """A calibration throw: two white dice (a 5 and a 3) of `die_mm` (16 mm) on a 508 mm board, seen straight down at
    1280x960; dice of other colours given `body` and `pips` (BGR); `lens`: photograph's."""
    from tests.vision.render import _face

    rng = np.random.default_rng(12)
    canvas, corners, _ = flat_table(rng)
    side = round((corners[1][0] - corners[0][0]) * die_mm / 508)  # (a real board: 508 mm)
    for value, (cx, cy) in ((5, (420, 470)), (3, (560, 430))):
        canvas[cy - side // 2:cy - side // 2 + side, cx - side // 2:cx - side // 2 + side] = _face(
            value, side, body, pips)
    return np.asarray(photograph(canvas, camera_homography(0, 0, 0, (1280, 960)), (1280, 960), rng, lens))


@pytest.mark.parametrize("blur", [0.0, 1.5])
def test_cli_calibrate_says_how_soft_the_picture_is_at_the_dice(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 blur: float) -> None:
    """The calibration throw's dice give the picture's blur (vision/focus.py): a camera too soft for the reader to
    tell a leaning die (every throw of white dice refused as too soft) is told so when the table is set up. Sharp, the
    line names the smear limit for the table's dice, and as these are under SMEAR_LEAST_DIE (17 px), warns that a
    small smear can pass a leaning die."""
    from calibration.io import load
    from tableside.cli import main
    from vision.focus import MAX_BLUR, SMEAR_LEAST_DIE, smear_limit

    image = _white_throw_photo()
    photo = tmp_path / "throw.png"
    cv2.imwrite(str(photo), cv2.GaussianBlur(image, (0, 0), blur) if blur else image)
    assert main(["calibrate", str(photo), "--throw", str(photo), "-o", str(tmp_path / "table.json")]) == 0
    printed = capsys.readouterr().out.splitlines()
    at = next(i for i, x in enumerate(printed) if "of a die's side" in x)
    line = printed[at]
    if blur:
        assert line.startswith("warning: the picture is soft at the dice (blur 0.0"), line
        assert line.endswith(f"throws are refused over {MAX_BLUR}, as too soft to tell a leaning die): focus the "
                             "camera, or bring it nearer"), line
    else:
        die = load(tmp_path / "table.json").die_size_px
        assert die is not None and die < SMEAR_LEAST_DIE
        assert line.startswith("focus: blur 0.0") and line.endswith(
            f"(throws are refused over {MAX_BLUR}, or over {smear_limit(light_pips=False, die=die):.3f} in the "
            f"softest direction for dice of {die:.0f} px)"), line
        assert printed[at + 1] == (
            f"warning: dice of {die:.1f} px are under the {SMEAR_LEAST_DIE} px at which a smear is told from a sharp "
            "picture: a camera shaken by 2-3 px can pass a leaning die; frame the board closer")


def test_cli_calibrate_warns_of_a_picture_smeared_by_motion(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A throw smeared one way (a mount that shakes, a slow shutter) is sharp across the smear, and the round blur's
    measure passes it; its softest direction (vision/focus.py die_smear) is told at calibration, as every throw of
    white dice would be refused for it. Smeared 5 px along the rows (dice of 31 px on the table's canvas): the round
    measure stays under MAX_BLUR (at 6 px it is over it, and the line is the soft picture's)."""
    from calibration.io import load
    from tableside.cli import main
    from tests.vision.render import motion_blur
    from vision.focus import smear_limit

    image = _white_throw_photo()
    sharp, smeared = tmp_path / "sharp.png", tmp_path / "smeared.png"
    cv2.imwrite(str(sharp), image)
    cv2.imwrite(str(smeared), motion_blur(image, 5, 0.0))
    assert main(["calibrate", str(sharp), "--throw", str(smeared), "-o", str(tmp_path / "table.json")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "of a die's side" in x)
    assert line.startswith("warning: the picture is smeared at the dice (blur 0.0"), line
    limit = smear_limit(light_pips=False, die=load(tmp_path / "table.json").die_size_px)
    assert line.endswith(f"throws are refused over {limit:.3f}, as smeared by motion): hold the camera and the "
                         "table still"), line


def test_calibrate_names_both_cures_where_a_soft_lens_and_a_smear_measure_alike(tmp_path: Path) -> None:
    """White dice of 17 px (under vision/focus.py SMEAR_LEAST_DIE): a round blur of 0.7 px keeps the steepest edges'
    blur under MAX_BLUR but its softest direction over the limit for dice that small, and no more one way than a
    round blur is: the warning cannot say smeared or soft, and names both cures."""
    from calibration.io import load
    from tableside.cli import main
    from tableside.commands.calibrate import _find_dice, _focus_line
    from vision.focus import smear_limit

    image = _white_throw_photo()
    sharp = tmp_path / "sharp.png"
    cv2.imwrite(str(sharp), image)
    assert main(["calibrate", str(sharp), "--throw", str(sharp), "-o", str(tmp_path / "table.json")]) == 0
    cal = load(tmp_path / "table.json")
    line = _focus_line(cv2.GaussianBlur(image, (0, 0), 0.7), _find_dice(image, cal), cal)
    assert line.startswith("warning: the picture is soft or smeared at the dice (blur 0.0"), line
    assert line.endswith(f"in its softest direction; throws are refused over "
                         f"{smear_limit(light_pips=False, die=cal.die_size_px):.3f}): focus the camera, and hold it "
                         "and the table still"), line


def test_cli_calibrate_tells_light_pipped_dice_their_own_limits(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Red dice with white pips are refused for more round blur than white dice (vision/focus.py MAX_BLUR_LIGHT_PIPS),
    and under the Pi unit's 26 px for less, as their size gives (blur_limit, smear_limit): calibration says which limits
    hold for the table's dice, and warns of a throw of them smeared 6 px along the rows. (The smeared throw is measured
    against the dice and colours found sharp: smeared, this photo's dice are no longer found as red ones, and the white
    dice's warnings speak.)"""
    from calibration.io import load
    from tableside.cli import main
    from tableside.commands.calibrate import _find_dice, _focus_line
    from tests.vision.render import motion_blur
    from vision.focus import MAX_BLUR_LIGHT_PIPS, blur_limit, smear_limit

    # (Dice of 21 px, a lens of 0.5 px.)
    image = _white_throw_photo(body=(40, 40, 190), pips=(240, 240, 240), lens=0.5, die_mm=20.0)
    sharp = tmp_path / "sharp.png"
    cv2.imwrite(str(sharp), image)
    assert main(["calibrate", str(sharp), "--throw", str(sharp), "-o", str(tmp_path / "table.json")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "of a die's side" in x)
    cal = load(tmp_path / "table.json")
    die = cal.die_size_px
    assert die is not None and 20.0 < die < 22.0
    most, limit = blur_limit(light_pips=True, die=die), smear_limit(light_pips=True, die=die)
    assert most < MAX_BLUR_LIGHT_PIPS
    assert line.startswith("focus: blur 0.0"), line
    assert line.endswith(f"(dice with light pips are refused over {most:.3f}, or over {limit:.3f} in the softest "
                         f"direction for dice of {die:.0f} px)"), line
    dice = _find_dice(image, cal)
    assert len(dice) == 2
    line = _focus_line(motion_blur(image, 6, 0.0), dice, cal)
    assert line.startswith("warning: the picture is smeared at the dice (blur 0.0"), line
    assert line.endswith(f"throws are refused over {limit:.3f}, as smeared by motion): hold the camera "
                         "and the table still"), line


def test_focal_length_rides_in_extra_and_a_bad_one_is_refused() -> None:
    """A camera straight overhead cannot have its focal length measured from the board (vision/camera.py);
    a calibration may carry it as extra.focal_px. Absent: None. Not a positive number: a one-line error."""
    from calibration.model import dumps, loads

    base = Calibration(image_size=(640, 480), board_polygon=((0.0, 0.0), (640.0, 0.0), (640.0, 480.0)))
    assert base.focal_px is None
    cal = loads(dumps(Calibration(image_size=(640, 480), board_polygon=base.board_polygon,
                                  extra={"focal_px": 531.5})))
    assert cal.focal_px == 531.5
    for bad in (0, -3.0, "wide", True):
        text = dumps(Calibration(image_size=(640, 480), board_polygon=base.board_polygon, extra={"focal_px": bad}))
        with pytest.raises(CalibrationError, match="focal_px must be a positive number"):
            loads(text)


def test_cli_calibrate_records_the_lens_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--hfov DEG` records the lens (extra.focal_px, pixels of the calibrated frames): the test camera's
    focal length is 0.9 of the frame's width, a field of view of 2 atan(1 / 1.8) = 58.1 degrees. Near
    overhead the board's four corners measure it badly (vision/camera.py); the lens given is used instead.
    Outside 10-170 degrees: a one-line error, nothing written."""
    from tableside.cli import main
    from vision.camera import BoardCamera

    rng = np.random.default_rng(13)
    out = (1280, 960)
    canvas, _, _ = flat_table(rng)
    hom = camera_homography(4, 20, 0, out)
    photo, target = tmp_path / "table.png", tmp_path / "table.json"
    cv2.imwrite(str(photo), photograph(canvas, hom, out, rng))
    hfov = math.degrees(2 * math.atan(0.5 / 0.9))
    assert main(["calibrate", str(photo), "--hfov", f"{hfov:.4f}", "-o", str(target)]) == 0
    assert "lens: 58.1" in capsys.readouterr().out
    cal = io.load(target)
    assert cal.focal_px == pytest.approx(0.9 * out[0], rel=1e-4)
    assert cal.homography is not None and cal.die_size_px is not None
    cam = BoardCamera(np.array(cal.homography), out, cal.die_size_px, focal_px=cal.focal_px)
    assert cam._k[0, 0] == cal.focal_px
    for bad in ("5", "180"):
        assert main(["calibrate", str(photo), "--hfov", bad, "-o", str(tmp_path / "bad.json")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "horizontal field of view must be 10-170 degrees" in err, err
        assert not (tmp_path / "bad.json").exists()
