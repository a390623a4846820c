"""`tableside read IMAGE… [--calibration FILE] [--expect N|any] [--before IMAGE] [--json] [--annotate OUT.png]`.

Reads the dice in still images. With `--before` (a frame of the table before the throw, same camera and
view), only where each image differs from it, and with a leaning die's side face told by what was not there
before (its pips; a red or black die's body), the board's own spots not taken for one, as the roll watcher
reads a throw (vision/change.py, vision/sidepips.py, vision/spots.py SpotsBefore). One
JSON object per image with --json (one per line), else one line in words. Exit 0 whatever the verdicts;
2 (via tableside.cli) for an image or calibration that can't be used.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tableside.cli import UsageError


def _expect(text: str) -> int | None:
    if text == "any":
        return None
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--expect wants a number of dice or 'any', not {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("--expect must be at least 1")
    return n


def register(sub: Any) -> None:
    p = sub.add_parser("read", help="read the dice in still images and say whether the throw counts")
    p.add_argument("images", nargs="+", type=Path, metavar="IMAGE", help="photo(s) of the table")
    p.add_argument("--calibration", type=Path, help="calibration file (play area, die size); default: whole image")
    # (No default here: the note after a refused read suggests --expect only to whoever did not give it.)
    p.add_argument("--expect", type=_expect, default=argparse.SUPPRESS, metavar="N|any",
                   help="dice in the throw (default 2); a different count is 'unreadable'")
    p.add_argument("--before", type=Path, metavar="IMAGE",
                   help="the table before the throw (same camera and view): read only where each image differs "
                        "from it, as the camera watcher does; needs --calibration with a die size")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.add_argument("--annotate", type=Path, metavar="OUT.png",
                   help="also write the image with boxes, values and the verdict drawn (one file per image: "
                        "with several images the image's name is appended; no extension: a PNG)")
    p.set_defaults(func=handle)


def _annotate_path(out: Path, image: Path, many: bool) -> Path:
    """Where the annotated copy of `image` goes: `out` itself (a PNG where `out` has no extension), or with
    several images `out` with the image's name appended."""
    suffix = out.suffix or ".png"
    return out.with_name(f"{out.stem}-{image.stem}{suffix}") if many else out.with_suffix(suffix)


def _check_annotate(out: Path) -> None:
    """Refuse an --annotate target that no image could be written to, before any image is read (else the
    reads would print and the write then fail)."""
    import cv2

    if out.is_dir() or not out.name:
        raise UsageError(f"cannot write annotated image {out}: it is a folder (give a file, e.g. {out / 'read.png'})")
    if not cv2.haveImageWriter(str(_annotate_path(out, out, False))):
        raise UsageError(f"cannot write annotated image {out}: no image format for {out.suffix!r} "
                         "(use .png or .jpg)")
    folder = out.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write annotated image {out}: no folder {folder}")


def handle(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from calibration.model import loads
    from vision.change import changes
    from vision.draw import annotate
    from vision.reader import calibrated_die_size, read_dice

    if args.annotate is not None:
        _check_annotate(args.annotate)
    calibration = None
    if args.calibration is not None:
        try:
            text = args.calibration.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read calibration {args.calibration}: {exc.strerror or exc}") from exc
        calibration = loads(text)  # CalibrationError (a ValueError) names what is wrong
    def load(image: Path) -> Any:
        try:
            data = np.frombuffer(image.read_bytes(), np.uint8)
        except OSError as exc:
            raise UsageError(f"cannot read image {image}: {exc.strerror or exc}") from exc
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if frame is None:
            raise UsageError(f"cannot read image {image}: not a picture OpenCV can decode")
        return frame

    before = None
    if args.before is not None:
        if calibration is None or not calibration.die_size_px:
            raise UsageError("--before needs --calibration with a die size (the places read are measured in dice)")
        before = load(args.before)
    expect_given = hasattr(args, "expect")
    expect: int | None = args.expect if expect_given else 2
    many = len(args.images) > 1
    refused = False
    for image in args.images:
        frame = load(image)
        changed = None
        die = calibrated_die_size(calibration, (frame.shape[1], frame.shape[0]))
        if before is not None and die:
            if before.shape != frame.shape:
                raise UsageError(f"--before {args.before} is {before.shape[1]}x{before.shape[0]} and {image} is "
                                 f"{frame.shape[1]}x{frame.shape[0]}: not two frames of one camera view")
            changed = changes(before, frame, die)
        reading = read_dice(frame, calibration=calibration, expect=expect, changed=changed,
                            before=before if changed is not None else None)
        if args.json:
            print(json.dumps({"image": str(image), **reading.to_json()}))
        else:
            values = ", ".join("?" if d.value is None else str(d.value) for d in reading.dice) or "none"
            tail = f"total {reading.total}" + (" (doubles)" if reading.doubles else "") \
                if reading.total is not None else reading.reason
            print(f"{image}: {reading.verdict.value} - dice [{values}] - {tail}")
            refused |= reading.total is None
        if args.annotate is not None:
            poly = calibration.play_polygon_in((frame.shape[1], frame.shape[0])) if calibration is not None else None
            out = _annotate_path(args.annotate, image, many)
            if not cv2.imwrite(str(out), annotate(frame, reading, poly)):
                raise UsageError(f"cannot write annotated image {out}")
    if refused and calibration is None:
        # Uncalibrated, a board's own print, pieces and the dice's side faces can pass for dice of a guessed size
        # (on the simulated board, 9 of 12 plain throws are refused so, none calibrated): say what helps.
        count = "" if expect_given else "; more dice than two, --expect N or any"
        print("tableside read: note: read without --calibration (the whole picture is the play area, the die size "
              "guessed); on a board, `tableside calibrate PHOTO -o cal.json` once and read with --calibration "
              f"cal.json{count}", file=sys.stderr)
    return 0
