"""`tableside calibrate IMAGE|--source SPEC [-o FILE] [--throw IMAGE] [--hfov DEG]`: find the board in a photo of
the table, or in a frame of the table's camera as `tableside run` opens it, by the marker sheet's markers or,
without them, by the board's own outline, and write the calibration file (board polygon, tray polygon,
homography, expected die size and colours, and the lens where given)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tableside.cli import UsageError


def register(sub: Any) -> None:
    p = sub.add_parser("calibrate", help="calibrate a table from a photo: by the corner markers, or by the board's "
                                         "outline")
    p.add_argument("image", nargs="?", help="photo from the table camera showing the whole board (with its four "
                                            "corner markers, or without: then the board is found by its outline)")
    p.add_argument("--source", metavar="SPEC",
                   help="take the photo from the table's camera instead, opened as `tableside run --source` opens "
                        "it (picamera[:N], webcam:N, video:PATH, folder:DIR): the calibration is then made on "
                        "the very frames the unit reads, of their size and field of view")
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


def _find_dice(image: Any, cal: Any) -> list[Any]:
    """The dice the reader finds and reads, each with its top face's quadrilateral (none if the reader isn't
    available)."""
    try:
        from vision import read_dice
    except ImportError:
        return []
    reading = read_dice(image, calibration=cal, expect=None)
    return [d for d in reading.dice if len(d.corners) == 4 and d.value is not None]


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


# Frames read from a camera before the one calibrated on: its exposure and white balance settle meanwhile.
SETTLE_FRAMES = 10


def _camera_frame(spec: str) -> Any:
    """A frame of the table's camera, opened as `tableside run --source SPEC` opens it: the last of the first
    SETTLE_FRAMES (fewer where the source ends sooner)."""
    from hardware.sources import SourceError, open_source

    if spec.partition(":")[0] in ("none", "sim", "simulated"):
        raise UsageError(f"--source {spec}: calibrate from a camera, a video or a folder of photos (the simulated "
                         "camera brings its own calibration)")
    source = open_source(spec)
    try:
        source.open()
        frame = None
        for _ in range(SETTLE_FRAMES):
            got = source.read()
            if got is None:
                break
            frame = got
    except SourceError as exc:
        raise UsageError(f"--source {spec}: {exc}") from exc
    finally:
        source.close()
    if frame is None:
        raise UsageError(f"--source {spec}: no frame came from it")
    print(f"frame: {frame.image.shape[1]}x{frame.image.shape[0]} from {source.name}", file=sys.stderr)
    return frame.image


def handle(args: argparse.Namespace) -> int:
    from calibration import fit, io
    from calibration.model import CalibrationError, dumps

    if args.board_mm <= 0 or args.die_mm <= 0 or args.die_mm >= args.board_mm:
        raise ValueError("--board-mm and --die-mm must be positive, the die smaller than the board")
    if (args.image is None) == (args.source is None):
        raise UsageError("give the table's photo (IMAGE) or its camera (--source SPEC), one of them")
    image = io.read_image(args.image) if args.image is not None else _camera_frame(args.source)
    cal = fit.from_photo(image, board_mm=args.board_mm, die_mm=args.die_mm, tray=args.tray)
    if args.hfov is not None:
        cal = fit.with_lens(cal, args.hfov)
    out = sys.stdout if args.output else sys.stderr
    size = f"{cal.image_size[0]}x{cal.image_size[1]}"
    if cal.source == "outline":
        print(f"board: found by its outline (no markers) in {size}: check the polygon below, or calibrate with "
              "the marker sheet", file=out)
    else:
        print(f"markers: {', '.join(str(m) for m in cal.extra.get('markers', []))} in {size}", file=out)
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
    dice = _find_dice(throw, cal)
    if dice:
        cal = fit.with_dice_sample(cal, throw, [d.corners for d in dice])
        print(f"die size: {cal.die_size_px:.1f} px from {len(dice)} dice; die colour BGR {cal.die_color_bgr}, "
              f"pips BGR {cal.pip_color_bgr}", file=out)
        focus = _focus_line(throw, dice, cal)
        if focus:
            print(focus, file=out)
    else:
        print(f"die size: {cal.die_size_px:.1f} px estimated from the board size (no readable dice found; "
              "pass --throw with a photo of dice on the board to measure it)", file=out)
    small = _small_dice(cal.die_size_px, cal.image_size)
    if small:
        print(small, file=out)
    if args.output:
        path = io.save(cal, args.output)
        print(f"wrote {path}", file=out)
    else:
        print(dumps(cal))
    return 0


def _focus_line(image: Any, dice: list[Any], cal: Any) -> str:
    """How soft the throw's picture is at its dice (vision/focus.py), against the blur over which a throw is refused,
    round (a lens out of focus) or one way (a smear: a shaking mount, a slow shutter), as the reader refuses it
    (focus.too_soft): a soft camera is found when the table is set up, not at its first throw. "" where no die could
    be measured."""
    from vision.focus import SMEAR_LEAST_DIE, Fault, blur_limit, frame_blurs, smear_limit, too_soft
    from vision.look import DieLook

    share, smear = frame_blurs(image, dice, cal.die_size_px) if cal.die_size_px else (None, None)
    if share is None:
        return ""
    look = DieLook.of(cal)
    light = look is not None and not look.dark_pips
    soft = too_soft(share, smear, light_pips=light, die=cal.die_size_px)
    if soft is not None:
        m, most = f"{soft.measured:.3f}", f"{soft.limit:.3f}"
        return {
            Fault.SOFT: f"warning: the picture is soft at the dice (blur {m} of a die's side; throws are refused over "
                        f"{most}, as too soft to tell a leaning die): focus the camera, or bring it nearer",
            Fault.SMEARED: f"warning: the picture is smeared at the dice (blur {m} of a die's side one way; throws are "
                           f"refused over {most}, as smeared by motion): hold the camera and the table still",
            Fault.SOFT_OR_SMEARED: f"warning: the picture is soft or smeared at the dice (blur {m} of a die's side in "
                                   f"its softest direction; throws are refused over {most}): focus the camera, and "
                                   "hold it and the table still",
        }[soft.fault]
    round_most = blur_limit(light_pips=light, die=cal.die_size_px)
    limit = smear_limit(light_pips=light, die=cal.die_size_px)
    who = "dice with light pips" if light else "throws"
    line = (f"focus: blur {share:.3f} of a die's side ({who} are refused over {round_most:.3f}, or over {limit:.3f} in "
            f"the softest direction for dice of {cal.die_size_px:.0f} px)")
    if not light and cal.die_size_px < SMEAR_LEAST_DIE:
        # (Under it a smear of 2-3 px measures as a sharp picture does, and can pass a leaning die: vision/focus.py.)
        line += (f"\nwarning: dice of {cal.die_size_px:.1f} px are under the {SMEAR_LEAST_DIE} px at which a smear is "
                 "told from a sharp picture: a camera shaken by 2-3 px can pass a leaning die; frame the board closer")
    return line


def _small_dice(die_px: float | None, size: tuple[int, int]) -> str:
    """A warning where the calibrated dice are smaller than the reader reads safely, else "". The reader reads
    small dice on the frame enlarged to its working size, but at most MAX_ENLARGE times (vision/scale.py): dice
    under READ_DIE / MAX_ENLARGE stay under the development photos' smallest. On the simulated table at
    640x480, seeds 1-20 of each kind of throw (docs/vision.md, "A real board's proportions"), dice of 13, 15 and
    18 px gave 2 wrong `ok`s in 80 each; 20, 24 and 27 px 0, 1 and 0; the usual 31 px none in 160 (before the
    rule on pipless bodies of vision/netcheck.py, which closed those from 15 px up)."""
    from vision.scale import MAX_ENLARGE, READ_DIE

    least = READ_DIE / MAX_ENLARGE
    if die_px is None or die_px >= least:
        return ""
    w, h = size
    return (f"warning: dice of {die_px:.1f} px in {w}x{h} frames are under the {least:g} px the reader reads "
            f"safely (it enlarges a frame at most {MAX_ENLARGE:g} times): frame the board closer, or take frames of "
            "more pixels (a board filling a 1280x960 frame shows its dice at about 26 px)")
