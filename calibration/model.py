"""The calibration of one table's camera view: a frozen value, stored as a versioned JSON file."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

FORMAT_VERSION = 1
# Frames of another shape than the calibration's show another part of the view (a 16:9 still and 4:3 frames of
# one sensor crop different sides; a webcam's modes differ so too), not the same view scaled: a calibration
# is used only for frames of its own shape, within this share (1640x1232 and 1280x960 are one shape).
ASPECT_SLACK = 0.01

Point = tuple[float, float]


class CalibrationError(ValueError):
    """A calibration file or image that can't be used; the message names the problem."""


@dataclass(frozen=True)
class Calibration:
    """Geometry and appearance of one table as the camera sees it (image pixel coordinates).

    `play_polygon` is where a die must rest for the throw to count: the board for Monopoly (M.DICE.1),
    the dice tray for Catan (C.DICE.1).
    """

    image_size: tuple[int, int]  # (width, height) of the frames this calibration is for
    board_polygon: tuple[Point, ...]
    tray_polygon: tuple[Point, ...] | None = None
    homography: tuple[tuple[float, float, float], ...] | None = None  # image -> board plane (3x3)
    die_size_px: float | None = None  # expected side of a die's top face, in pixels
    die_color_bgr: tuple[int, int, int] | None = None
    pip_color_bgr: tuple[int, int, int] | None = None
    source: str = "markers"  # "markers" | "corners" | "outline"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def play_polygon(self) -> tuple[Point, ...]:
        return self.tray_polygon if self.tray_polygon else self.board_polygon

    @property
    def focal_px(self) -> float | None:
        """The lens's focal length in pixels of `image_size`, where the calibration knows it (`extra["focal_px"]`:
        the simulated camera's, or `tableside calibrate --hfov`). Where known it is used over the board
        homography's measure, which near overhead four corners a pixel off make unsteady (vision/camera.py)."""
        return _positive(self.extra.get("focal_px"))

    def in_frame(self, polygon: tuple[Point, ...], frame_wh: tuple[int, int]) -> tuple[Point, ...]:
        """A polygon of the calibration's pixels in the pixels of frames of `frame_wh` (the calibration may be
        for frames of another size, of its own shape: check_frame)."""
        (cw, ch), (w, h) = self.image_size, frame_wh
        sx, sy = (w / cw if cw else 1.0), (h / ch if ch else 1.0)
        return tuple((x * sx, y * sy) for x, y in polygon)

    def play_polygon_in(self, frame_wh: tuple[int, int]) -> tuple[Point, ...]:
        """`play_polygon` in the pixels of frames of `frame_wh`."""
        return self.in_frame(self.play_polygon, frame_wh)

    def check_frame(self, frame_wh: tuple[int, int]) -> None:
        """Refuse (CalibrationError) frames of another shape than the calibration's: scaling the calibration
        to them would put the board, the play area and the dice's size where they are not."""
        (cw, ch), (w, h) = self.image_size, frame_wh
        if min(cw, ch, w, h) <= 0:
            return
        if abs((w / h) / (cw / ch) - 1.0) > ASPECT_SLACK:
            raise CalibrationError(f"the calibration is for {cw}x{ch} frames and this one is {w}x{h}, another "
                                   "shape that shows another part of the table: calibrate from this camera's "
                                   "frames")

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "tableside-calibration",
            "version": FORMAT_VERSION,
            "image_size": list(self.image_size),
            "board_polygon": [list(p) for p in self.board_polygon],
            "tray_polygon": [list(p) for p in self.tray_polygon] if self.tray_polygon else None,
            "homography": [list(r) for r in self.homography] if self.homography else None,
            "die_size_px": self.die_size_px,
            "die_color_bgr": list(self.die_color_bgr) if self.die_color_bgr else None,
            "pip_color_bgr": list(self.pip_color_bgr) if self.pip_color_bgr else None,
            "source": self.source,
            "extra": self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        if data.get("format") != "tableside-calibration":
            raise CalibrationError("not a tableside calibration file (missing format tag)")
        version = data.get("version")
        if version != FORMAT_VERSION:
            raise CalibrationError(f"calibration format version {version!r} is not supported "
                                   f"(this build reads version {FORMAT_VERSION})")
        try:
            board = tuple((float(x), float(y)) for x, y in data["board_polygon"])
            tray_raw = data.get("tray_polygon")
            tray = tuple((float(x), float(y)) for x, y in tray_raw) if tray_raw else None
            hom_raw = data.get("homography")
            hom = tuple((float(r[0]), float(r[1]), float(r[2])) for r in hom_raw) if hom_raw else None
            if len(board) < 3:
                raise CalibrationError("calibration board polygon has fewer than 3 corners")
            w, h = data["image_size"]
            extra = dict(data.get("extra") or {})
            focal = extra.get("focal_px")
            if focal is not None and _positive(focal) is None:
                raise CalibrationError(f"calibration extra.focal_px must be a positive number of pixels, not {focal!r}")
            die_c = data.get("die_color_bgr")
            pip_c = data.get("pip_color_bgr")
            return cls(
                image_size=(int(w), int(h)),
                board_polygon=board,
                tray_polygon=tray,
                homography=hom,
                die_size_px=float(data["die_size_px"]) if data.get("die_size_px") is not None else None,
                die_color_bgr=(int(die_c[0]), int(die_c[1]), int(die_c[2])) if die_c else None,
                pip_color_bgr=(int(pip_c[0]), int(pip_c[1]), int(pip_c[2])) if pip_c else None,
                source=str(data.get("source", "markers")),
                extra=extra,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"malformed calibration file: {exc}") from exc


def focal_from_hfov(width: int, hfov_deg: float) -> float:
    """The focal length in pixels of frames `width` pixels wide whose horizontal field of view is `hfov_deg`."""
    return 0.5 * width / math.tan(math.radians(0.5 * hfov_deg))


def _positive(x: object) -> float | None:
    """`x` as a float if it is a positive number (not a bool), else None."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 else None


def dumps(cal: Calibration) -> str:
    return json.dumps(cal.to_json(), indent=2)


def loads(text: str) -> Calibration:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"calibration file is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise CalibrationError("calibration file must hold a JSON object")
    return Calibration.from_json(data)
