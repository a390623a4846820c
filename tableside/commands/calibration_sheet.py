"""`tableside calibration-sheet -o FILE.pdf|FILE.png`: the printable ArUco marker sheet for calibration."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("calibration-sheet", help="write the printable marker sheet (PDF or PNG)")
    p.add_argument("-o", "--output", required=True, help="FILE.pdf (true size on A4) or FILE.png")
    p.add_argument("--dpi", type=int, default=200, help="resolution of the page (default 200)")
    p.add_argument("--marker-mm", type=float, default=40.0, help="printed marker side in mm (default 40)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from calibration.io import write_sheet
    from calibration.markers import sheet_image

    if not 72 <= args.dpi <= 600:
        raise ValueError("--dpi must be between 72 and 600")
    if not 15 <= args.marker_mm <= 60:
        raise ValueError("--marker-mm must be between 15 and 60 (two columns on A4)")
    path = write_sheet(args.output, sheet_image(dpi=args.dpi, marker_mm=args.marker_mm), args.dpi)
    print(f"wrote {path}: markers 0-3 for the board corners, 4-7 for the dice tray")
    return 0
