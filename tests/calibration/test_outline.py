"""A board found by its own outline, without the marker sheet (calibration/outline.py): on rendered boards at
every camera angle, with the table's edge in view, on the simulated camera's board with its dice and pieces;
and refused, with what was seen, where a photo shows no whole board."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import fit, io
from calibration.markers import BOARD_IDS
from calibration.model import CalibrationError
from calibration.outline import find_board
from hardware.simcam import SimulatedCamera
from hardware.simrender import face_up
from tests.calibration.test_calibration import ANGLES, _true_corners, camera_homography, flat_table, photograph

TABLE_BGR = (60, 90, 130)  # flat_table's table colour


def _error(found: tuple[tuple[float, float], ...], truth: list[tuple[float, float]]) -> float:
    return fit.polygon_error(fit.order_corners(found), fit.order_corners(truth))


def _board_photo(rng: np.random.Generator, out: tuple[int, int], tilt: float, yaw: float, roll: float,
                 table: tuple[int, int, int] = TABLE_BGR) -> tuple[np.ndarray, list[tuple[float, float]]]:
    canvas, corners, _ = flat_table(rng, skip=BOARD_IDS)
    if table != TABLE_BGR:
        canvas[(canvas == TABLE_BGR).all(axis=2)] = table
    hom = camera_homography(tilt, yaw, roll, out)
    return photograph(canvas, hom, out, rng), _true_corners(corners, hom)


@pytest.mark.parametrize("tilt,yaw,roll", ANGLES)
@pytest.mark.parametrize("out", [(1280, 960), (640, 480)])
def test_board_found_by_its_outline_at_every_camera_angle(tilt: float, yaw: float, roll: float,
                                                          out: tuple[int, int]) -> None:
    """The rendered board of the marker tests with no markers, turned any way: its corners within 1.5 px
    (measured: 0.12-1.07 px over these 12 photos). Straight down (tilt 0) the canvas's own edge is in view
    around the board, a square with the board a ring's share inside it: the board is still the one found."""
    rng = np.random.default_rng(int(tilt * 1000 + yaw * 10 + out[0]))
    photo, truth = _board_photo(rng, out, tilt, yaw, roll)
    assert _error(find_board(photo), truth) < 1.5


def test_a_large_photo_is_searched_shrunk_and_answered_in_its_own_pixels() -> None:
    """A phone's 2560x1920 photo is searched on a copy 960 px across; the corners come back in the photo's own
    pixels (measured 1.2 px off)."""
    photo, truth = _board_photo(np.random.default_rng(8), (2560, 1920), 30, 120, -8)
    assert _error(find_board(photo), truth) < 3.0


@pytest.mark.parametrize("table", [(20, 20, 20), (120, 140, 150), (170, 185, 180)])
def test_board_found_on_tables_dark_and_light(table: tuple[int, int, int]) -> None:
    """A black table, a grey one, and a pale one only 40 levels darker than the board (measured 1.0-1.1 px)."""
    photo, truth = _board_photo(np.random.default_rng(5), (1280, 960), 25, 40, 0, table)
    assert _error(find_board(photo), truth) < 1.5


@pytest.mark.parametrize("tilt", [0, 18, 35, 55])
def test_the_simulated_board_with_its_dice_and_pieces(tilt: float) -> None:
    """The simulated camera's printed board on its wooden table (grain, lighting falloff, sensor noise), with
    its tokens on the board's edge and two dice: the corners within 4 px (of a board 390-470 px wide). The board's
    printed border line (1.4 px wide in the frame) is much darker than the wood, so the edge found is its
    inner one: measured 3.1-3.4 px off at every tilt (0.8% of the board's width), within the line's width
    and 2.5 px more."""
    cam = SimulatedCamera(seed=2, tilt_deg=tilt)
    photo = cam.still([cam.posed_die((60.0, 40.0, 9.0), np.eye(3)), cam.posed_die((-110.0, 30.0, 9.0), np.eye(3))])
    truth = [(float(x), float(y)) for x, y in cam.board_corners_px()]
    assert _error(find_board(photo), truth) < 4.0


def _on_cloth(cam: SimulatedCamera, cloth: str, seed: int) -> np.ndarray:
    """The simulated board with the table around it covered by a patterned cloth."""
    img = cam.still([])
    h, w = img.shape[:2]
    board = np.zeros((h, w), np.uint8)
    cv2.fillPoly(board, [cam.board_corners_px().round().astype(np.int32)], 255)
    yy, xx = np.mgrid[0:h, 0:w]
    rng = np.random.default_rng(seed)
    if cloth == "checks":
        side, turn = int(rng.integers(12, 40)), float(rng.uniform(0, np.pi))
        u = (xx * np.cos(turn) + yy * np.sin(turn)) // side
        v = (-xx * np.sin(turn) + yy * np.cos(turn)) // side
        light = (u + v) % 2 == 0
        pattern = np.where(light[..., None], np.array([40, 40, 160]), np.array([230, 230, 230]))
    else:
        pattern = np.where(((xx // 8) % 2 == 0)[..., None], np.array([60, 80, 100]), np.array([90, 120, 150]))
    return np.where(board[..., None] > 0, img, pattern).astype(np.uint8)


@pytest.mark.parametrize("cloth,tilt", [("checks", 0), ("checks", 20), ("stripes", 0), ("stripes", 40)])
def test_the_board_on_a_patterned_cloth_is_found_by_its_ring(cloth: str, tilt: float) -> None:
    """A checked or striped cloth's lines join the board's edge into one tangle of contours, but the ring of
    spaces inside the board stays clear of them: the board is grown from it and its sides fitted. Measured
    over 6 seeds at tilts 0, 20 and 40: stripes 18 of 18 within 3.2 px, checks 12 of 18 (none at 40 degrees,
    where every check's edge is as long as a board's side foreshortened: refused, never a wrong board)."""
    for seed in range(3):
        cam = SimulatedCamera(seed=seed, tilt_deg=tilt)
        truth = [(float(x), float(y)) for x, y in cam.board_corners_px()]
        assert _error(find_board(_on_cloth(cam, cloth, seed)), truth) < 4.0


def test_no_whole_board_is_refused_with_what_was_seen() -> None:
    rng = np.random.default_rng(9)
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="no closed four-sided outline"):
        find_board(blank)
    # A sheet of paper on the table: four straight sides, but no ring of spaces inside them.
    sheet = np.full((960, 1280, 3), TABLE_BGR, np.uint8)
    cv2.rectangle(sheet, (300, 200), (1000, 800), (240, 240, 240), -1)
    with pytest.raises(CalibrationError, match="no ring of spaces"):
        find_board(sheet)
    # The board running out of the photo: its corners are not all there to find.
    photo, truth = _board_photo(rng, (1280, 960), 20, 15, 0)
    cut = round(min(x for x, _ in truth)) + 150  # through the board's left corner
    with pytest.raises(CalibrationError, match="no board outline found"):
        find_board(np.ascontiguousarray(photo[:, cut:]))
    with pytest.raises(CalibrationError, match="too small"):
        find_board(np.zeros((20, 20, 3), np.uint8))


def test_from_photo_uses_the_markers_where_there_are_any() -> None:
    """Markers in view win, and a missing one is named (the sheet is in use), not guessed around by the
    outline; with none in view the board's outline is used; the dice tray needs its markers."""
    rng = np.random.default_rng(4)
    out = (1280, 960)
    hom = camera_homography(22, 35, 0, out)
    canvas, _, _ = flat_table(rng)
    assert fit.from_photo(photograph(canvas, hom, out, rng)).source == "markers"
    canvas, _, _ = flat_table(rng, skip=(2,))
    with pytest.raises(CalibrationError, match=r"missing board corner marker\(s\) 2"):
        fit.from_photo(photograph(canvas, hom, out, rng))
    photo, truth = _board_photo(rng, out, 22, 35, 0)
    cal = fit.from_photo(photo)
    assert cal.source == "outline" and cal.homography is not None and cal.image_size == out
    assert fit.polygon_error(cal.board_polygon, truth) < 1.5
    assert cal.die_size_px and abs(cal.die_size_px - fit.from_corners(truth, out).die_size_px) < 0.2  # type: ignore[operator]
    with pytest.raises(CalibrationError, match="tray is found by its markers"):
        fit.from_photo(photo, tray=True)
    with pytest.raises(CalibrationError, match="no calibration markers found in the image, and no board outline"):
        fit.from_photo(np.full((480, 640, 3), 128, np.uint8))


def test_cli_calibrates_by_the_outline_and_the_dice_read_with_it(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """End to end as a user without the marker sheet: `tableside calibrate` on a photo of the simulated board
    (its own board and die sizes given), then `tableside read` with that calibration reads the dice of a
    throw photographed by the same camera right."""
    from tableside.cli import main

    cam = SimulatedCamera(seed=3, tilt_deg=18)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), cam.still([]))
    target = tmp_path / "table.json"
    assert main(["calibrate", str(photo), "--board-mm", str(cam.board_mm), "--die-mm", str(cam.die_mm),
                 "-o", str(target)]) == 0
    printed = capsys.readouterr().out
    assert "board: found by its outline (no markers) in 640x480" in printed and "board polygon" in printed
    cal = io.load(target)
    assert cal.source == "outline"
    assert fit.polygon_error(cal.board_polygon, [(float(x), float(y)) for x, y in cam.board_corners_px()]) < 4.0
    assert cal.die_size_px and abs(cal.die_size_px / cam.die_size_px() - 1.0) < 0.1
    throw = tmp_path / "throw.png"
    cv2.imwrite(str(throw), cam.still([cam.posed_die((40.0, -20.0, cam.die_mm / 2), face_up(3)),
                                       cam.posed_die((-50.0, 30.0, cam.die_mm / 2), face_up(5))]))
    assert main(["read", str(throw), "--calibration", str(target), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["verdict"] == "ok" and sorted(d["value"] for d in got["dice"]) == [3, 5], got

    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    assert main(["calibrate", str(blank), "-o", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no calibration markers found in the image, and no board outline found" in err
    assert not (tmp_path / "none.json").exists()

