"""`tableside calibrate IMAGE [-o FILE] [--throw IMAGE] [--hfov DEG]`: find the marker sheet's markers in a photo
of the table and write the calibration file (board polygon, tray polygon, homography, expected die size and
colours, and the lens where given)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="calibrate a table from a photo with the corner markers")
    p.add_argument("image", help="photo from the table camera showing the board's four corner markers")
    p.add_argument("-o", "--output", help="calibration file to write (default: print the JSON on stdout)")
    p.add_argument("--throw", metavar="IMAGE",
                   help="photo of dice lying on the board (same camera) to measure die size and colours; "
                        "default: look for dice in IMAGE itself")
    p.add_argument("--board-mm", type=float, default=508.0, help="board side in mm (default 508: Monopoly)")
    p.add_argument("--die-mm", type=float, default=16.0, help="die side in mm (default 16)")
    p.add_argument("--hfov", type=float, metavar="DEG",
                   help="the camera's horizontal field of view in degrees, for the frames of this size (Raspberry "
                        "Pi Camera Module 2: 62.2; Camera Module 3 in 4:3 frames: 53, docs/pi-install.md); "
                        "default: measured from the board's perspective")
    tray = p.add_mutually_exclusive_group()
    tray.add_argument("--tray", dest="tray", action="store_true", default=None,
                      help="require the dice-tray markers (ids 4-7; Catan)")
    tray.add_argument("--no-tray", dest="tray", action="store_false", help="ignore any tray markers")
    p.set_defaults(func=handle)


def _find_dice(image: Any, cal: Any) -> list[tuple[tuple[float, float], ...]]:
    """Top-face quadrilaterals of the dice the reader finds (none if the reader isn't available)."""
    try:
        from vision import read_dice
    except ImportError:
        return []
    reading = read_dice(image, calibration=cal, expect=None)
    return [d.corners for d in reading.dice if len(d.corners) == 4 and d.value is not None]


def _lens_line(cal: Any) -> str:
    """What the board's perspective says of the lens where none was given: near overhead it says little."""
    import math

    import numpy as np

    from vision.camera import measured_focal

    if cal.homography is None:
        return "lens: not given"
    w, h = cal.image_size
    f = measured_focal(np.linalg.inv(np.array(cal.homography, np.float64)), 0.5 * w, 0.5 * h)
    hfov = math.degrees(2.0 * math.atan(0.5 * w / f)) if f else 0.0
    if not 20.0 <= hfov <= 120.0:  # no camera's lens: the perspective is too faint to measure one
        return ("lens: not given, and the board's perspective is too faint to measure it (a camera near "
                "overhead): pass --hfov DEG")
    return (f"lens: not given; the board's perspective puts it at {hfov:.0f} degrees across, a measure four corners "
            "make unsteady near overhead: pass --hfov DEG if you know it")


def handle(args: argparse.Namespace) -> int:
    from calibration import fit, io
    from calibration.model import CalibrationError, dumps

    if args.board_mm <= 0 or args.die_mm <= 0 or args.die_mm >= args.board_mm:
        raise ValueError("--board-mm and --die-mm must be positive, the die smaller than the board")
    image = io.read_image(args.image)
    cal = fit.from_markers(image, board_mm=args.board_mm, die_mm=args.die_mm, tray=args.tray)
    if args.hfov is not None:
        cal = fit.with_lens(cal, args.hfov)
    out = sys.stdout if args.output else sys.stderr
    markers = cal.extra.get("markers", [])
    print(f"markers: {', '.join(str(m) for m in markers)} in {cal.image_size[0]}x{cal.image_size[1]}", file=out)
    print("board polygon: " + "  ".join(f"({x:.1f}, {y:.1f})" for x, y in cal.board_polygon), file=out)
    if cal.focal_px:
        print(f"lens: {args.hfov:g} degrees across, focal length {cal.focal_px:.1f} px", file=out)
    else:
        print(_lens_line(cal), file=out)
    if cal.tray_polygon:
        print("tray polygon: " + "  ".join(f"({x:.1f}, {y:.1f})" for x, y in cal.tray_polygon), file=out)

    throw = io.read_image(args.throw) if args.throw else image
    if throw.shape[:2] != image.shape[:2]:
        raise CalibrationError(f"--throw image is {throw.shape[1]}x{throw.shape[0]}, the calibration image "
                               f"{image.shape[1]}x{image.shape[0]}: use the same camera mode")
    quads = _find_dice(throw, cal)
    if quads:
        cal = fit.with_dice_sample(cal, throw, quads)
        print(f"die size: {cal.die_size_px:.1f} px from {len(quads)} dice; die colour BGR {cal.die_color_bgr}, "
              f"pips BGR {cal.pip_color_bgr}", file=out)
    else:
        print(f"die size: {cal.die_size_px:.1f} px estimated from the board size (no readable dice found; "
              "pass --throw with a photo of dice on the board to measure it)", file=out)
    if args.output:
        path = io.save(cal, args.output)
        print(f"wrote {path}", file=out)
    else:
        print(dumps(cal))
    return 0
