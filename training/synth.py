"""Synthetic die crops for the dice net: dice of every colour the Byler photos lack, on boards they lack.

Each crop is STORE x STORE px, 2.25 die sizes wide, with a die of the asked value at its centre (its top
face 32 px across, like training/data.py's crops) drawn supersampled: a rounded top face, sometimes
marbled; side faces seen in perspective, with pips of their own; a soft shadow; glare; pips of a
contrasting colour, sometimes engraved. Around it, 0-3 neighbouring dice; under it a plain, noisy or
printed background. Then a camera: a random resolution, blur, noise and JPEG. Class 0 crops centre the
window beside a die instead.

Not the Byler camera, not the simulated table's: a third look, so that what the net learns is the layout
of the pips and not one camera's dice.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dicenet import COCKED, N_CLASSES

STORE = 72
DIE = STORE / 2.25  # top-face side at the centre, pixels
SS = 3  # supersampling
# The faces of vision.layout.LAYOUTS, in a fixed order: the order fixes which random draw each pip takes,
# so the rendered crops (and the models trained on them) stay reproducible.
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


def _colour(rng: np.random.Generator) -> F64:
    k = rng.random()
    if k < 0.2:  # white, ivory
        return np.full(3, rng.uniform(200, 255)) * rng.uniform(0.9, 1.0, 3)
    if k < 0.35:  # black, grey
        return np.full(3, rng.uniform(10, 70)) * rng.uniform(0.8, 1.2, 3)
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(60, 256), rng.integers(60, 256)]]])
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float64)


def _pip_colour(rng: np.random.Generator, body: F64) -> F64:
    light = np.full(3, 235.0) * rng.uniform(0.85, 1.05)
    dark = np.full(3, 20.0) * rng.uniform(0.5, 2.0)
    k = rng.random()
    if k < 0.7:
        return dark if body.mean() > 140 else light
    for _ in range(20):
        c = _colour(rng)
        if np.linalg.norm(c - body) > 110:
            return c
    return 255.0 - body


def _noise(rng: np.random.Generator, n: int, cell: int) -> F32:
    g = rng.normal(0, 1, (max(2, n // cell), max(2, n // cell))).astype(np.float32)
    f = np.asarray(cv2.resize(g, (n, n), interpolation=cv2.INTER_CUBIC), np.float32)
    return np.asarray((f - f.mean()) / (f.std() + 1e-6), np.float32)


def _grid(value: int, rng: np.random.Generator) -> list[tuple[float, float]]:
    g = rng.uniform(0.24, 0.31)
    return [(u * g + rng.normal(0, 0.01), v * g + rng.normal(0, 0.01)) for u, v in PIPS[value]]


def _draw_die(img: F32, centre: F64, side: float, angle: float, value: int, rng: np.random.Generator,
              spread: float = 0.12) -> None:
    h, w = img.shape[:2]
    body, th = _colour(rng), np.radians(angle)
    pip = _pip_colour(rng, body)
    u, v = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
    corners = [centre + side / 2 * (a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    # `spread`: how far the body's side faces show beside the top face (the camera's slant), in die sides.
    lean = rng.normal(0, spread, 2) * side if rng.random() < 0.7 else np.zeros(2)
    shadow = np.zeros((h, w), np.float32)
    off = rng.normal(0, 0.1, 2) * side
    cv2.fillConvexPoly(shadow, np.int32([p + lean + off for p in corners]), 1.0)
    cv2.fillConvexPoly(shadow, np.int32(corners), 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), side * rng.uniform(0.08, 0.25))
    img *= (1 - rng.uniform(0.1, 0.45) * shadow)[..., None]
    # The body below the top face, shifted by the lean: its side faces, darker, with pips of their own.
    hull = cv2.convexHull(np.float32(corners + [p + lean for p in corners])).astype(np.int32)
    side_colour = body * rng.uniform(0.45, 0.85)
    cv2.fillConvexPoly(img, hull, side_colour.tolist())
    depth_dir = float(np.linalg.norm(lean))
    if depth_dir > 0.08 * side:
        d = lean / depth_dir
        nrm = u if abs(d @ u) > abs(d @ v) else v
        nrm = nrm * np.sign(d @ nrm)
        tang = np.array([-nrm[1], nrm[0]])
        depth = abs(float(lean @ nrm))
        edge = centre + nrm * side / 2
        for a, b in _grid(int(rng.integers(1, 7)), rng):
            p = edge + tang * a * side + nrm * (0.5 + b) * depth
            axes = (max(1, int(0.09 * depth)), max(1, int(0.09 * side)))
            cv2.ellipse(img, (int(p[0]), int(p[1])), axes, float(np.degrees(np.arctan2(nrm[1], nrm[0]))), 0, 360,
                        (pip * 0.8 + side_colour * 0.2).tolist(), -1)
    # The top face: a rounded square, maybe marbled, lit a little unevenly.
    r = side * rng.uniform(0.08, 0.2)
    top = np.zeros((h, w), np.float32)
    inner = [centre + (side / 2 - r) * (a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    cv2.fillConvexPoly(top, np.int32(inner), 1.0)
    for p in inner:
        cv2.circle(top, (int(p[0]), int(p[1])), int(r), 1.0, -1)
    k = 1 - 2 * r / side
    cv2.fillConvexPoly(top, np.int32([centre + side / 2 * (a * u + b * v * k) for a, b in
                                      ((-1, -1), (1, -1), (1, 1), (-1, 1))]), 1.0)
    cv2.fillConvexPoly(top, np.int32([centre + side / 2 * (a * u * k + b * v) for a, b in
                                      ((-1, -1), (1, -1), (1, 1), (-1, 1))]), 1.0)
    face = np.ones((h, w, 3), np.float32) * body.astype(np.float32)
    if rng.random() < 0.4:
        other = _colour(rng)
        mix = np.clip(0.5 + _noise(rng, max(h, w), int(rng.integers(8, 40)))[:h, :w] * rng.uniform(0.5, 2), 0, 1)
        mix = mix[..., None] * rng.uniform(0.3, 1.0)
        face = face * (1 - mix) + other.astype(np.float32) * mix
    rim = cv2.GaussianBlur(top, (0, 0), side * 0.04)
    face *= rng.uniform(0.85, 1.1) * (0.8 + 0.2 * rim[..., None])
    img[:] = img * (1 - top[..., None]) + face * top[..., None]
    pr = side * rng.uniform(0.075, 0.12)
    engraved = rng.random() < 0.5
    for a, b in _grid(value, rng):
        p = centre + side * (a * u + b * v)
        if engraved:
            cv2.circle(img, (int(p[0]), int(p[1])), int(pr * 1.1), (pip * 0.5 + body * 0.2).tolist(), -1)
        cv2.circle(img, (int(p[0]), int(p[1])), int(pr), pip.tolist(), -1)
    if rng.random() < 0.3:  # glare
        p = centre + rng.uniform(-0.4, 0.4, 2) * side
        g = np.zeros((h, w), np.float32)
        cv2.ellipse(g, (int(p[0]), int(p[1])), (int(side * rng.uniform(0.05, 0.3)), int(side * rng.uniform(0.03, 0.1))),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), side * 0.05) * top * 0.8
        img[:] = img * (1 - g[..., None]) + 255 * g[..., None]


def _draw_cocked(img: F32, at: F64, side: float, angle: float, rng: np.random.Generator,
                 tilted: bool = False) -> None:
    """A die leaning 22-65 degrees (on a piece, a wall, another die): two faces in view, each foreshortened
    across their shared edge, with pips of two adjacent values. No flat top face: class COCKED.

    `tilted`: leaning 18-60 degrees, the lower face as wide as an oblique camera may show it (5-60% of a
    side, whatever the lean: seen from straight above it would be sin(lean)), and its pips often not drawn
    (at a steep view they are specks, or the face is in shadow): what stays is a top face foreshortened
    across, its pips on a squashed grid, beside a band. A net that learned leaning dice only from two faces
    of pips reads such a face as a flat die's; flat dice, drawn beside these with their side faces showing
    further (_draw_die's `spread`), keep a square top face.

    `at` is where the middle of the die's outline lands, or the middle of either face: the product centres
    its crops on a face the pip readers found as often as on a body."""
    h, w = img.shape[:2]
    body, th = _colour(rng), np.radians(angle)
    pip = _pip_colour(rng, body)
    u, v = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
    t = np.radians(rng.uniform(18, 60) if tilted else rng.uniform(22, 65))
    plain_lower = tilted and rng.random() < 0.6
    ha, hb = side * np.cos(t), side * (rng.uniform(0.05, 0.6) if tilted else np.sin(t))
    v0 = -(ha + hb) / 2
    centre = at - v * float(rng.choice([0.0, v0 + ha / 2, v0 + ha + hb / 2]))
    if rng.random() < 0.4:  # what it leans on: a house or hotel beside its lower face
        _draw_piece(img, centre + v * (-v0 + rng.uniform(0.1, 0.4) * side), side, angle, rng)
    a = int(rng.integers(1, 7))
    b = int(rng.choice([k for k in range(1, 7) if k not in (a, 7 - a)]))
    outline = [centre + s * side / 2 * u + v * y for s, y in ((-1, v0), (1, v0), (1, v0 + ha + hb), (-1, v0 + ha + hb))]
    shadow = np.zeros((h, w), np.float32)
    off = rng.normal(0, 0.15, 2) * side
    cv2.fillConvexPoly(shadow, np.int32([p + off for p in outline]), 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), side * rng.uniform(0.08, 0.25))
    img *= (1 - rng.uniform(0.1, 0.45) * shadow)[..., None]
    shades = (rng.uniform(0.8, 1.1), rng.uniform(0.45, 0.95))
    if rng.random() < 0.5:
        shades = shades[::-1]
    pr = side * rng.uniform(0.075, 0.12)
    for (y0, hh, value, shade) in ((v0, ha, a, shades[0]), (v0 + ha, hb, b, shades[1])):
        quad = [centre + s * side / 2 * u + v * y for s, y in ((-1, y0), (1, y0), (1, y0 + hh), (-1, y0 + hh))]
        colour = body * shade
        cv2.fillConvexPoly(img, np.int32(quad), colour.tolist())
        if plain_lower and hh < ha:
            continue  # the more foreshortened face shows no pips
        squash = hh / side
        for pu, pv in _grid(value, rng):
            p = centre + u * pu * side + v * (y0 + hh / 2 + pv * hh)
            axes = (max(1, int(pr)), max(1, int(pr * squash)))
            cv2.ellipse(img, (int(p[0]), int(p[1])), axes, float(np.degrees(th)), 0, 360,
                        (pip * shade).tolist(), -1)
    edge = [centre + s * side / 2 * u + v * (v0 + ha) for s in (-1, 1)]
    cv2.line(img, tuple(int(x) for x in edge[0]), tuple(int(x) for x in edge[1]), (body * 0.5).tolist(),
             max(1, int(0.03 * side)))


def _draw_piece(img: F32, centre: F64, side: float, angle: float, rng: np.random.Generator) -> None:
    """A game piece (a house or hotel): a box of a strong colour, its top face lit and one side darker."""
    th = np.radians(angle + rng.normal(0, 10))
    u, v = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
    length, width = side * rng.uniform(0.6, 1.6), side * rng.uniform(0.5, 0.9)
    colour = _colour(rng) if rng.random() < 0.4 else np.array([40.0, 40.0, 200.0]) if rng.random() < 0.5 \
        else np.array([40.0, 150.0, 40.0])
    top = [centre + a * length / 2 * u + b * width / 2 * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    drop = v * side * rng.uniform(0.1, 0.35)
    cv2.fillConvexPoly(img, cv2.convexHull(np.float32(top + [q + drop for q in top])).astype(np.int32),
                       (colour * rng.uniform(0.4, 0.7)).tolist())
    cv2.fillConvexPoly(img, np.int32(top), (colour * rng.uniform(0.85, 1.1)).tolist())


def _background(rng: np.random.Generator, n: int) -> F32:
    base = np.full(3, rng.uniform(170, 250)) * rng.uniform(0.9, 1.05, 3) if rng.random() < 0.5 \
        else _colour(rng) * rng.uniform(0.6, 1.0)
    img = np.ones((n, n, 3), np.float32) * base.astype(np.float32)
    img += _noise(rng, n, int(rng.integers(4, 64)))[..., None] * rng.uniform(0, 15)
    if rng.random() < 0.3:  # printed lines and bands of a board
        for _ in range(int(rng.integers(1, 4))):
            p, t = rng.uniform(0, n, 2), rng.uniform(0, np.pi)
            d = np.array([np.cos(t), np.sin(t)]) * n * 2
            cv2.line(img, tuple(int(x) for x in p - d), tuple(int(x) for x in p + d), _colour(rng).tolist(),
                     int(rng.integers(1, n // 6)))
    yy, xx = np.mgrid[0:n, 0:n] / n
    img *= (1 + rng.uniform(-0.15, 0.15) * (xx - 0.5) + rng.uniform(-0.15, 0.15) * (yy - 0.5))[..., None]
    return img


def crop(label: int, rng: np.random.Generator, tilted: float = 0.0) -> NDArray[np.uint8]:
    """One STORE x STORE BGR crop: a die showing `label` (1..6) at the centre, (0) no die centred there, or
    (COCKED) a leaning die at the centre, `tilted` of them drawn as _draw_cocked's tilted kind; sometimes a
    game piece beside it. With `tilted` 0 no random draw is spent on it: the dice net's recipe (the shipped
    models) renders the same crops as before the option."""
    n = STORE * SS
    img = _background(rng, n)
    side = DIE * SS * rng.uniform(0.85, 1.15)
    mid = np.array([n / 2, n / 2])
    centre = mid + rng.normal(0, 0.04, 2) * side
    if label == 0:  # the window's centre 0.6-1.0 die sizes off a die
        a = rng.uniform(0, 2 * np.pi)
        centre = mid + rng.uniform(0.6, 1.0) * side * np.array([np.cos(a), np.sin(a)])
    for _ in range(int(rng.choice([0, 0, 1, 1, 2, 3]))):
        a = rng.uniform(0, 2 * np.pi)
        q = centre + side * rng.uniform(1.05, 1.8) * np.array([np.cos(a), np.sin(a)])
        if label == 0 and np.hypot(*(q - mid)) < 0.5 * side:
            continue
        _draw_die(img, q, side * rng.uniform(0.9, 1.1), rng.uniform(0, 90), int(rng.integers(1, 7)), rng,
                  0.2 if tilted else 0.12)
    if label != COCKED and rng.random() < 0.15:  # a piece nearby, not under the window's centre
        a = rng.uniform(0, 2 * np.pi)
        _draw_piece(img, centre + side * rng.uniform(1.0, 1.6) * np.array([np.cos(a), np.sin(a)]), side,
                    rng.uniform(0, 180), rng)
    if label == COCKED:
        at, turn = mid + rng.normal(0, 0.12, 2) * side, rng.uniform(0, 360)
        _draw_cocked(img, at, side, turn, rng, tilted=bool(tilted) and bool(rng.random() < tilted))
    else:
        _draw_die(img, centre, side, rng.uniform(0, 90), label or int(rng.integers(1, 7)), rng,
                  0.2 if tilted else 0.12)
    # The camera: a random resolution, then blur, noise and JPEG at the crop's size.
    px = max(12, int(STORE * rng.uniform(0.45, 1.1)))
    small = cv2.resize(np.clip(img, 0, 255), (px, px), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0))
    small += rng.normal(0, rng.uniform(1, 6), small.shape).astype(np.float32)
    out = cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (STORE, STORE), interpolation=cv2.INTER_LINEAR)
    _, jpg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
    return np.asarray(cv2.imdecode(jpg, cv2.IMREAD_COLOR), np.uint8)


def crops(n: int, seed: int, classes: int = N_CLASSES,
          tilted: float = 0.0) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """`n` crops cycling through labels 0..classes-1, reproducible from `seed` (and `tilted`, see crop)."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n, dtype=np.int64) % classes
    return np.stack([crop(int(k), rng, tilted) for k in labels]), labels
