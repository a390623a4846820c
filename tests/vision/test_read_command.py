"""`tableside read` end to end on rendered images written to a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.model import Calibration, dumps
from tableside.cli import main
from tests.vision.render import DieSpec, render


@pytest.fixture
def two_dice(tmp_path: Path) -> Path:
    p = tmp_path / "throw.png"
    cv2.imwrite(str(p), render([DieSpec(3, (200, 180), angle=15), DieSpec(5, (430, 320), angle=60)], seed=5))
    return p


def test_json_line_per_image(two_dice: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(two_dice), str(two_dice), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    obj = json.loads(lines[0])
    assert obj["image"] == str(two_dice)
    assert obj["verdict"] == "ok" and obj["total"] == 8 and obj["doubles"] is False
    assert sorted(d["value"] for d in obj["dice"]) == [3, 5]


def test_human_line_expect_and_annotate(two_dice: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ann.png"
    assert main(["read", str(two_dice), "--expect", "3", "--annotate", str(out)]) == 0
    got = capsys.readouterr()
    line = got.out.strip()
    assert "unreadable" in line and "found 2 dice, expected 3" in line
    # Refused uncalibrated: one line on stderr says what helps (not on stdout, which stays one line an image).
    note = got.err.strip()
    assert "\n" not in note and "without --calibration" in note and "tableside calibrate" in note
    assert "--expect" not in note  # given already: the note does not suggest it
    assert cv2.imread(str(out)) is not None
    assert main(["read", str(two_dice), "--expect", "any"]) == 0
    got = capsys.readouterr()
    assert "ok" in got.out and got.err == ""  # read: nothing to suggest
    assert main(["read", str(two_dice), "--expect", "3", "--json"]) == 0
    assert capsys.readouterr().err == ""  # JSON readers get the JSON only
    three = tmp_path / "three.png"
    cv2.imwrite(str(three), render([DieSpec(3, (150, 150)), DieSpec(5, (330, 250), angle=30),
                                    DieSpec(2, (500, 380), angle=70)], seed=6))
    assert main(["read", str(three)]) == 0  # two dice expected by default, three found
    got = capsys.readouterr()
    assert "found 3 dice, expected 2" in got.out and "more dice than two, --expect N or any" in got.err


def test_calibration_polygon_gives_reroll(two_dice: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = tmp_path / "cal.json"
    c.write_text(dumps(Calibration(image_size=(640, 480), board_polygon=((0, 0), (320, 0), (320, 480), (0, 480)))))
    assert main(["read", str(two_dice), "--calibration", str(c), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["verdict"] == "reroll" and obj["reason"] == "die 2 off the board"
    assert main(["read", str(two_dice), "--calibration", str(c)]) == 0
    got = capsys.readouterr()
    assert "reroll" in got.out and got.err == ""  # calibrated: nothing to suggest


def test_unusable_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(tmp_path / "missing.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tableside read:") and "\n" not in err
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), render([]))
    assert main(["read", str(img), "--calibration", str(bad)]) == 2
    assert "calibration" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["out.txt", "missing-folder/out.png", "folder", "."])
def test_an_annotate_target_that_cannot_be_written_is_refused_before_reading(
        two_dice: Path, tmp_path: Path, target: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (OpenCV has no writer for .txt; the folder does not exist; a folder is no file.) Refused with one line
    # before any image is read: a script reading stdout gets nothing half done.
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["read", str(two_dice), "--annotate", target]) == 2
    got = capsys.readouterr()
    assert got.out == ""
    err = got.err.strip()
    assert err.startswith(f"tableside read: cannot write annotated image {Path(target)}") and "\n" not in err
    assert sorted(q.name for q in tmp_path.iterdir()) == ["folder", "throw.png"]


def test_annotate_without_an_extension_writes_a_png(two_dice: Path, tmp_path: Path) -> None:
    assert main(["read", str(two_dice), "--annotate", str(tmp_path / "ann")]) == 0
    assert cv2.imread(str(tmp_path / "ann.png")) is not None
    assert main(["read", str(two_dice), str(two_dice), "--annotate", str(tmp_path / "both")]) == 0
    assert cv2.imread(str(tmp_path / "both-throw.png")) is not None


def _sim_throw(tmp_path: Path, kind: str, seed: int) -> tuple[Path, Path, Path, object]:
    from hardware.simcam import SimulatedCamera

    cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
    frames = list(cam)
    before, after, cal = tmp_path / "before.png", tmp_path / "after.png", tmp_path / "cal.json"
    cv2.imwrite(str(before), frames[0].image)
    cv2.imwrite(str(after), frames[-1].image)
    cal.write_text(dumps(cam.calibration()))
    return before, after, cal, cam


def test_before_reads_only_where_the_table_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--before: the throw read as the camera watcher reads it. A stacked throw on the simulated board read
    whole reports the board's lettering as dice too (seed 34: "found 4 dice"); read where the table changed,
    only what lies at the thrown dice."""
    before, after, cal, cam = _sim_throw(tmp_path, "stacked", 34)
    assert main(["read", str(after), "--calibration", str(cal), "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert main(["read", str(after), "--calibration", str(cal), "--before", str(before), "--json"]) == 0
    changed = json.loads(capsys.readouterr().out)
    assert whole["verdict"] == changed["verdict"] == "unreadable"
    (truth,) = cam.throws  # type: ignore[attr-defined]
    die = cam.die_size_px()  # type: ignore[attr-defined]

    def far(dice: list[dict]) -> int:
        return sum(min(np.hypot(d["center"][0] - t.center_px[0], d["center"][1] - t.center_px[1])
                       for t in truth.dice) > 1.5 * die for d in dice)

    assert far(whole["dice"]) > 0 and far(changed["dice"]) == 0
    before, after, cal, cam = _sim_throw(tmp_path, "ok", 2)
    assert main(["read", str(after), "--calibration", str(cal), "--before", str(before), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    (truth,) = cam.throws  # type: ignore[attr-defined]
    assert obj["verdict"] == "ok" and sorted(d["value"] for d in obj["dice"]) == sorted(truth.values)


def test_before_needs_a_die_size_and_the_same_view(tmp_path: Path, two_dice: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    before, after, cal, _ = _sim_throw(tmp_path, "ok", 2)
    assert main(["read", str(after), "--before", str(before)]) == 2
    assert "--before needs --calibration with a die size" in capsys.readouterr().err
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(before)), (320, 240)))
    assert main(["read", str(after), "--calibration", str(cal), "--before", str(small)]) == 2
    err = capsys.readouterr().err.strip()
    assert "not two frames of one camera view" in err and "\n" not in err


def test_a_calibration_for_frames_of_another_shape_is_refused(two_dice: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A calibration is scaled to frames of its own shape (1280x960 for these 640x480 photos, its polygon
    drawn halved), and refused for another (1280x720): scaled, it would put the board where it is not."""
    c = tmp_path / "cal.json"
    c.write_text(dumps(Calibration(image_size=(1280, 960), board_polygon=((0, 0), (640, 0), (640, 960), (0, 960)))))
    out = tmp_path / "ann.png"
    assert main(["read", str(two_dice), "--calibration", str(c), "--json", "--annotate", str(out)]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["verdict"] == "reroll" and obj["reason"] == "die 2 off the board"  # the board: the left half
    drawn = np.abs(cv2.imread(str(out)).astype(int) - cv2.imread(str(two_dice)).astype(int)).sum(axis=2) > 0
    assert drawn[20:120, 316:325].any(axis=1).all()  # the board's right edge, at x = 320 (rows with no die)
    c.write_text(dumps(Calibration(image_size=(1280, 720), board_polygon=((0, 0), (640, 0), (640, 720), (0, 720)))))
    assert main(["read", str(two_dice), "--calibration", str(c)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "1280x720" in err and "640x480" in err and "another shape" in err
