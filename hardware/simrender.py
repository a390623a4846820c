"""The simulated camera's picture: the scene's geometry (a die's faces and pips, the rotation that puts a value on
top) and its drawing (the table and board, dice as shaded boxes with rounded faces, shadows, a hand, sensor
noise), for `hardware.simcam.SimulatedCamera`.

`SceneRenderer` is that camera's base class: its methods draw with the camera's own projection and colours
(the attributes declared below), kept apart from the script of throws and hands in hardware/simcam.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

# Face value -> outward normal in the die's own frame; opposite faces sum to seven.
FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0, 0, 1),
    6: (0, 0, -1),
    2: (1, 0, 0),
    5: (-1, 0, 0),
    3: (0, 1, 0),
    4: (0, -1, 0),
}
# Pip centres on a face, in units of half the face side.
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-0.5, -0.5), (0.5, 0.5)),
    3: ((-0.5, -0.5), (0, 0), (0.5, 0.5)),
    4: ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)),
    5: ((-0.5, -0.5), (0.5, -0.5), (0, 0), (-0.5, 0.5), (0.5, 0.5)),
    6: ((-0.5, -0.55), (0.5, -0.55), (-0.5, 0), (0.5, 0), (-0.5, 0.55), (0.5, 0.55)),
}
# A pip's radius in half-sides of its face; Japanese dice mark the 1 with one large red pip instead, 0.4 of
# the face's side across (their 1s measure 0.3-0.45).
PIP_RADIUS = 0.17
BIG_ONE = (0.4, (40, 40, 200))
_LIGHT = np.array([-0.35, 0.45, 1.0]) / np.linalg.norm([-0.35, 0.45, 1.0])
_SHIFT = 4  # fixed-point bits for sub-pixel polygon drawing
_ONE = 1 << _SHIFT


def axis_rotation(axis: Sequence[float], angle: float) -> F64:
    """The rotation by `angle` (radians) about `axis` (Rodrigues' formula)."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.asarray(np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k), dtype=np.float64)


def face_up(value: int) -> F64:
    """Rotation (die frame -> world) that puts `value` on top."""
    n = np.array(FACE_NORMALS[value], dtype=np.float64)
    z = np.array([0.0, 0.0, 1.0])
    if np.allclose(n, z):
        return np.eye(3)
    if np.allclose(n, -z):
        return axis_rotation((1, 0, 0), math.pi)
    axis = [float(c) for c in np.cross(n, z)]
    return axis_rotation(axis, math.acos(float(np.clip(n @ z, -1, 1))))


def top_value(rot: F64) -> int:
    """The face pointing most upward for a die with this rotation."""
    return max(FACE_NORMALS, key=lambda v: float((rot @ np.array(FACE_NORMALS[v]))[2]))


@dataclass(frozen=True)
class DiePose:
    """A die (or a box-shaped piece) in the world: centre (mm), rotation die->world, half-extents."""

    center: tuple[float, float, float]
    rot: F64
    half: tuple[float, float, float]
    color: tuple[int, int, int] = (236, 238, 240)
    pips: bool = True
    pip_color: tuple[int, int, int] | None = None  # None: black pips (shaded darker only a little)
    big_one: bool = False  # its 1 one large red pip, as on Japanese dice (BIG_ONE)


@dataclass
class Hand:
    x: float  # palm centre, image px
    y: float
    angle: float  # direction from the palm to the wrist, radians (image coords)
    holding: int = 0


@dataclass
class Scene:
    dice: list[DiePose]
    hand: Hand | None = None


class SceneRenderer:
    """Draws a `Scene` as the simulated camera sees it (see the module's docstring)."""

    size: tuple[int, int]
    noise: float
    board_mm: float
    die_mm: float
    rng: np.random.Generator
    _cam_pos: F64
    _pieces: list[DiePose]
    _background: U8
    _noise_bank: list[tuple[U8, U8]]

    if TYPE_CHECKING:  # the camera's own (hardware/simcam.py)
        def project(self, pts: F64) -> F64: ...

        def board_corners_px(self) -> F64: ...

        def die_size_px(self) -> float: ...

    def _render_background(self) -> U8:
        w, h = self.size
        rng = self.rng
        # Table: brown wood with grain.
        base = np.empty((h, w, 3), np.float32)
        base[:] = (55, 85, 125)
        grain_rows = rng.normal(0, 1, size=(h // 8 + 2, 1)).astype(np.float32)
        grain = cv2.resize(np.repeat(grain_rows, 4, axis=1), (w, h), interpolation=cv2.INTER_CUBIC)
        blotch = cv2.resize(
            rng.normal(0, 1, size=(12, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
        )
        base += (grain * 9 + blotch * 6)[..., None]
        table = np.clip(base, 0, 255).astype(np.uint8)

        tex = self._board_texture(900)
        src = np.array([[0, 0], [900, 0], [900, 900], [0, 900]], dtype=np.float32)
        hom = cv2.getPerspectiveTransform(src, self.board_corners_px().astype(np.float32))
        warped = cv2.warpPerspective(tex, hom, (w, h), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full((900, 900), 255, np.uint8), hom, (w, h))
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        img = (warped.astype(np.float32) * alpha + table.astype(np.float32) * (1 - alpha)).astype(np.uint8)
        # A slight lighting falloff towards the corners.
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        fall = 1.0 - 0.12 * (((xx - w * 0.45) / w) ** 2 + ((yy - h * 0.4) / h) ** 2) * 2
        img = np.clip(img.astype(np.float32) * fall[..., None], 0, 255).astype(np.uint8)
        for piece in self._pieces:
            self._draw_box(img, piece)
        return np.asarray(img, dtype=np.uint8)

    def _board_texture(self, n: int) -> U8:
        tex = np.empty((n, n, 3), np.uint8)
        tex[:] = (200, 228, 212)
        unit = n / 12.2
        corner = 1.6 * unit
        groups = [
            (40, 60, 120),
            (235, 200, 150),
            (150, 60, 200),
            (30, 140, 240),
            (40, 40, 210),
            (40, 220, 240),
            (60, 160, 40),
            (140, 60, 20),
        ]
        line = (30, 30, 30)
        cv2.rectangle(tex, (0, 0), (n - 1, n - 1), line, 3)
        cv2.rectangle(tex, (round(corner), round(corner)), (round(n - corner), round(n - corner)), line, 2)
        for side in range(4):
            for k in range(9):
                a = corner + k * unit
                b = a + unit
                # squares along the bottom edge, then rotated for the other sides
                quad = np.array([[a, n - corner], [b, n - corner], [b, n], [a, n]])
                strip = np.array(
                    [
                        [a, n - corner],
                        [b, n - corner],
                        [b, n - corner + 0.32 * unit],
                        [a, n - corner + 0.32 * unit],
                    ]
                )
                angle = side * math.pi / 2
                rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
                centre = np.array([n / 2, n / 2])
                q = ((quad - centre) @ rot.T + centre).round().astype(np.int32)
                st = ((strip - centre) @ rot.T + centre).round().astype(np.int32)
                if k not in (2, 4, 7):
                    cv2.fillPoly(tex, [st], groups[(side * 2 + k // 5) % len(groups)])
                cv2.polylines(tex, [q], True, line, 2)
        cv2.putText(
            tex,
            "TABLESIDE",
            (round(n * 0.24), round(n * 0.53)),
            cv2.FONT_HERSHEY_DUPLEX,
            n / 420,
            (40, 40, 190),
            3,
            cv2.LINE_AA,
        )
        return tex

    def _make_noise(self) -> list[tuple[U8, U8]]:
        w, h = self.size
        bank = []
        for _ in range(6):
            n = self.rng.normal(0, self.noise, size=(h, w, 3)).round()
            bank.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        return bank

    def render(self, scene: Scene) -> U8:
        img = self._background.copy()
        dice = sorted(scene.dice, key=lambda p: -float(np.linalg.norm(np.array(p.center) - self._cam_pos)))
        for die in dice:
            self._draw_shadow(img, die)
        for die in dice:
            self._draw_box(img, die)
        if scene.hand is not None:
            self._draw_hand(img, scene.hand)
        if self.noise > 0:
            pos, neg = self._noise_bank[int(self.rng.integers(len(self._noise_bank)))]
            return np.asarray(cv2.subtract(cv2.add(img, pos), neg), dtype=np.uint8)
        return img

    def _corners(self, pose: DiePose) -> F64:
        hx, hy, hz = pose.half
        local = np.array([[sx * hx, sy * hy, sz * hz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        return np.asarray(local @ pose.rot.T + np.array(pose.center), dtype=np.float64)

    def _draw_shadow(self, img: U8, pose: DiePose) -> None:
        pts = self._corners(pose)
        ground = pts - (pts[:, 2:3] / _LIGHT[2]) * _LIGHT[None, :]
        px = self.project(ground)
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        x0, y0 = np.floor(hull.min(axis=0)).astype(int) - 6
        x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 6
        h, w = img.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [((hull - (x0, y0)) * _ONE).round().astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)
        mask = cv2.GaussianBlur(mask, (7, 7), 2.0)
        roi = img[y0:y1, x0:x1].astype(np.float32)
        roi *= (1.0 - 0.45 * mask.astype(np.float32) / 255.0)[..., None]
        img[y0:y1, x0:x1] = roi.astype(np.uint8)

    def _draw_box(self, img: U8, pose: DiePose) -> None:
        hx, hy, hz = pose.half
        center = np.array(pose.center)
        faces = []
        for value, normal in FACE_NORMALS.items():
            n_local = np.array(normal, dtype=np.float64)
            n_world = pose.rot @ n_local
            half_depth = abs(n_local @ np.array([hx, hy, hz]))
            fc = center + n_world * half_depth
            if float(n_world @ (self._cam_pos - fc)) <= 0:
                continue
            # Face axes: two local axes other than the normal.
            idx = [k for k in range(3) if n_local[k] == 0]
            e1 = pose.rot[:, idx[0]] * (hx, hy, hz)[idx[0]]
            e2 = pose.rot[:, idx[1]] * (hx, hy, hz)[idx[1]]
            faces.append((float(np.linalg.norm(fc - self._cam_pos)), value, n_world, fc, e1, e2))
        faces.sort(key=lambda f: -f[0])
        # The body behind the faces shows as a darker rim where the rounded edges are.
        hull = cv2.convexHull(self.project(self._corners(pose)).astype(np.float32)).reshape(-1, 2)
        rim = tuple(int(c * 0.55) for c in pose.color)
        cv2.fillPoly(img, [(hull * _ONE).round().astype(np.int32)], rim, cv2.LINE_AA, _SHIFT)
        for _, value, n_world, fc, e1, e2 in faces:
            # Scaled so a face turned straight up shows the die colour itself: white dice look white.
            shade = min(1.0, 0.42 + 0.58 * max(0.0, float(n_world @ _LIGHT)) / float(_LIGHT[2]))
            color = tuple(int(min(255, c * shade)) for c in pose.color)
            outline = self._rounded_square(fc, e1, e2, 0.93, 0.22)
            cv2.fillPoly(img, [(outline * _ONE).round().astype(np.int32)], color, cv2.LINE_AA, _SHIFT)
            if pose.pips:
                pip_color = tuple(int(20 + 15 * shade) for _ in range(3)) if pose.pip_color is None else \
                    tuple(int(min(255, c * shade)) for c in pose.pip_color)
                big = pose.big_one and value == 1
                r = BIG_ONE[0] if big else PIP_RADIUS
                ink = tuple(int(min(255, c * shade)) for c in BIG_ONE[1]) if big else pip_color
                for pu, pv in _PIPS[value]:
                    ring = self._ellipse(fc + e1 * pu + e2 * pv, e1, e2, r)
                    cv2.fillPoly(img, [(ring * _ONE).round().astype(np.int32)], ink, cv2.LINE_AA, _SHIFT)

    def _rounded_square(self, fc: F64, e1: F64, e2: F64, extent: float, radius: float) -> F64:
        pts = []
        inner = extent - radius
        for cu, cv, a0 in ((1, 1, 0.0), (-1, 1, 90.0), (-1, -1, 180.0), (1, -1, 270.0)):
            for k in range(5):
                a = math.radians(a0 + k * 22.5)
                u = cu * inner + radius * math.cos(a)
                v = cv * inner + radius * math.sin(a)
                pts.append(fc + e1 * u + e2 * v)
        return self.project(np.array(pts))

    def _ellipse(self, c: F64, e1: F64, e2: F64, r: float) -> F64:
        angles = np.linspace(0, 2 * math.pi, 14, endpoint=False)
        pts = c[None, :] + r * (np.cos(angles)[:, None] * e1[None, :] + np.sin(angles)[:, None] * e2[None, :])
        return self.project(pts)

    def _draw_hand(self, img: U8, hand: Hand) -> None:
        # A real palm is about five dice wide.
        scale = 1.5 * self.die_size_px() / 30.0
        skin = (120, 150, 205)
        dark = (85, 110, 160)
        ca, sa = math.cos(hand.angle), math.sin(hand.angle)
        palm = np.array([hand.x, hand.y])
        wrist = palm + np.array([ca, sa]) * 38 * scale
        far = palm + np.array([ca, sa]) * 900 * scale
        perp = np.array([-sa, ca])
        arm = np.array(
            [
                wrist + perp * 30 * scale,
                far + perp * 38 * scale,
                far - perp * 38 * scale,
                wrist - perp * 30 * scale,
            ]
        )
        shadow_off = np.array([14, 18]) * scale
        overlay = img.copy()
        cv2.fillPoly(
            overlay, [((arm + shadow_off) * _ONE).round().astype(np.int32)], (0, 0, 0), cv2.LINE_AA, _SHIFT
        )
        cv2.ellipse(
            overlay,
            (round(palm[0] + shadow_off[0]), round(palm[1] + shadow_off[1])),
            (round(48 * scale), round(42 * scale)),
            math.degrees(hand.angle),
            0,
            360,
            (0, 0, 0),
            -1,
        )
        cv2.addWeighted(overlay, 0.3, img, 0.7, 0, dst=img)
        cv2.fillPoly(img, [(arm * _ONE).round().astype(np.int32)], skin, cv2.LINE_AA, _SHIFT)
        cv2.ellipse(
            img,
            (round(palm[0]), round(palm[1])),
            (round(48 * scale), round(42 * scale)),
            math.degrees(hand.angle),
            0,
            360,
            skin,
            -1,
            cv2.LINE_AA,
        )
        root = (round(palm[0]), round(palm[1]))
        finger = max(2, round(17 * scale))
        for k, spread in enumerate((-0.55, -0.2, 0.15, 0.5)):
            direction = -np.array([ca, sa]) * math.cos(spread) + perp * math.sin(spread)
            tip = palm + direction * (70 - 6 * abs(k - 1.5)) * scale
            end = (round(tip[0]), round(tip[1]))
            cv2.line(img, root, end, skin, finger, cv2.LINE_AA)
            cv2.line(img, end, end, dark, finger, cv2.LINE_AA)  # (a line of no length: the fingertip's round cap)
        thumb = palm + (perp * 0.9 - np.array([ca, sa]) * 0.3) * 55 * scale
        cv2.line(
            img,
            root,
            (round(thumb[0]), round(thumb[1])),
            skin,
            max(2, round(19 * scale)),
            cv2.LINE_AA,
        )
        if hand.holding:
            # Dice peeking out between the fingers.
            s = self.die_size_px() * 0.8
            for k in range(hand.holding):
                c = palm - np.array([ca, sa]) * 20 * scale + perp * (k - 0.5) * s * 1.1
                box = cv2.boxPoints(((float(c[0]), float(c[1])), (s, s), 20.0 + 35 * k))
                cv2.fillPoly(
                    img, [(box * _ONE).round().astype(np.int32)], (228, 230, 232), cv2.LINE_AA, _SHIFT
                )
                cv2.circle(
                    img, (round(c[0]), round(c[1])), max(1, round(s * 0.12)), (30, 30, 30), -1, cv2.LINE_AA
                )
