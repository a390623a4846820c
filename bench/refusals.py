"""Bench: wrong `ok`s of our reader and the blob-and-cluster peer on scenes where a wrong `ok` is easy.

Usage: .venv/bin/python bench/refusals.py [--covered N] [--sim-seeds S] [--table-seeds T] [--steep-seeds T]
[--soft-seeds N] [--soft-pi-seeds N] [--smear-seeds N] [--small-seeds N] [--models DIR]

Accuracy on the Byler photos (bench/vision.py) says how often an accepted die is right; this says how often
a throw that should be refused, or that is easy to misread, is accepted anyway. Each scene is read, expecting
two dice, by ours calibrated (the product: a die size and a board; the simulated camera's own calibration,
with its homography), ours uncalibrated (`tableside read` on a photo) and the peer (bench/peer_blobcluster.py).
Printed per kind of scene: `ok`s, wrong `ok`s (an `ok` whose values are not the scene's, or an `ok` for a
throw that must be refused), how many of those gave values other than the scene's ("values wrong", "misread":
a leaning die accepted with the value its top face shows breaks M.DICE.2's re-roll, but moves no piece wrongly;
"-" where a scene's value is not known, as the simulated camera's leaning die's) and right verdicts. A leaning
die's value is the face up before it leaned, which stays its top face up to 45 degrees.

- a die partly covered (tests/vision/test_dicenet.py's scenes: a block over 20-60% of one die, five
  colours): the values shown are a legal face more often than not, so a reader that trusts the visible pips
  reads the wrong value; right is `ok` with both values, or a refusal.
- a leaning die of every value beside a flat 4 (tests/vision/render.py's squash: the top face foreshortened
  to 0.6, 0.7 or 0.8 across, a side face beside it; turned 0, 20, 45, 70 degrees; white, black and red
  dice): 216 scenes, none of which may be `ok`. Only the skew of a face whose pips span two directions
  (4, 5, 6) measures a slant; a 1's single pip and a 2's or 3's line of pips do not, and the render.py
  frames carry no homography, so calibrated here means the die size and the board, not the camera's view.
- the simulated camera's throws (hardware/simcam.py): plain, off the board, cocked, stacked. Uncalibrated
  there is no board to be off, so an off-board throw read `ok` counts as a wrong `ok` for every reader.
- dice leaning near overhead (`--table-seeds N`): the simulated camera's 3-D dice set by hand
  (tests/vision/simthrows.py `sim_table`), one lying flat and one leaning 25 or 35 degrees about a random
  axis, the camera 0, 8 and 18 degrees off vertical, white, black and red dice, seeds 20 on (FIRST_TABLE_SEED);
  calibrated means the camera's own calibration, with its homography and the dice's look. None may be `ok`;
  beside them, two flat dice on the same tables and two flat dice touching (`sim_touching`), which must be read.

- a soft picture (`--soft-seeds N`, default none; vision/focus.py): the simulated camera's four kinds of throw,
  white dice, blurred as a lens out of focus would (a Gaussian of 0.75-2 px on dice of 31 px), some also with
  sensor noise of 6 grey levels or JPEG at quality 60, read as the roll watcher reads them (calibrated, where the
  table changed, with the table before): per look and kind, right verdicts and wrong `ok`s, ours only, seeds 100 on
  (seeds 0-99 chose vision/focus.py's MAX_BLUR).

- a soft picture of red and black dice at the Pi unit's view (`--soft-pi-seeds N`, default none; vision/focus.py
  MAX_BLUR_LIGHT_PIPS): plain and cocked throws blurred 1-2 px (dice of 26 px), seeds 241 on (1-240 chose the limit).

- a picture smeared by motion (`--smear-seeds N`, default none; vision/focus.py smear_limit):
  the simulated camera's plain and cocked throws, white, red and black dice, both frames smeared 3-8 px along six
  directions (0-150 degrees) as a camera shaking at rest would, read as the roll watcher reads them: per look and
  length, plain throws read right and cocked throws refused, and wrong `ok`s, ours only, seeds 321 on (seeds 1-320
  chose the limits at 640x480); at 640x480 (dice of 31 px) and at the Pi unit's view (1280x960, dice of 26 px),
  where white dice's limit is lower (vision/focus.py SMEAR_PX_PER_DIE_PX).

- red and black dice smaller than the Pi unit's (`--small-seeds N`, default none; vision/focus.py blur_limit and
  smear_limit for dice with light pips): a webcam at 1280x720 over a real board (dice of 19.35 px, read enlarged), plain
  and cocked throws blurred round 0.75-1.25 px or smeared 3-4 px along six directions, seeds 181 on (1-180 chose and
  held out the lines the limits follow).

- dice leaning freely, read from above (`--steep-seeds N`, default none): the same tables seen 35 and 45 degrees
  off vertical (read from above, vision/oblique.py), a die leaning 15, 25 or 35 degrees; a line per lean.

The simulated camera's sections read ours calibrated a second time given the table before the throw (as the
roll watcher reads a throw, vision/sidepips.py): the tables without their dice (the same camera, its noise
drawn anew), the throws' first frame.

Measured (2026-11-26, 40 seeds; ours calibrated / ours uncalibrated / the peer, wrong `ok`s): covered 1 / 10 /
247 of 300; leaning 88 / 85 / 158 of 216 (113 / 108 before vision/pipshape.py); simulated plain 0 / 0 / 19
(read right 40 / 21 / 6), off-board 0 / 24 / 31, cocked 0 / 5 / 17, stacked 0 / 0 / 0, of 40 each.
Dice leaning near overhead (2026-11-27, seeds 20-49), wrong `ok`s of 180, calibrated / uncalibrated / peer:
white 37 / 53 / 127, red 12 / 49 / 44 (calibrated 42 before vision/lean.py's refuse_open_sides), black
10 / 43 / 59 (43); two flat dice read right of 90, calibrated: white 89, red 79, black 90; touching: 78, 77, 89.
Given the table before the throw (2026-11-27, the next session): one leaning, white 10, red 11, black 9 of 180;
two flat 89, 79, 90; touching 78, 77, 89; the simulated throws as calibrated (40 right, no wrong `ok`).
Later that day, with a shaded side face's pips measured against its own level and an unread die on a side face
no longer kept clear of, and a spot asked to be ringed by lighter pixels (vision/sidepips.py): one leaning,
white 6, red 11, black 9; everything else the same.
2026-11-29 (`--covered 100 --sim-seeds 20 --table-seeds 30`), with a coloured die's body new since before refused
(vision/sidepips.py refuse_new_body): one leaning, white 6, red 2, black 2 of 180 (red 14, black 7 just before);
flat 89 / 79 / 90 and touching 81 / 77 / 89 of 90 (white / red / black), as before it. Then with the lean check of
light pips not counting spots the table before had (vision/spots.py SpotsBefore): leaning 6 / 2 / 2, flat 89 /
88 / 90, touching 81 / 85 / 89; every other row the same.
2026-11-30, the same options, with a side face's pips over the board's print counted (vision/sidepips.py `_new_pip`:
dark, black where the print had a hue): one leaning, white 6 -> 4 of 180; every other row the same.
Later that day, red and black dice refused where the side face a flat die shows the camera is the table as it was
(vision/sidepips.py `refuse_hidden_near_side`): one leaning, red 2 -> 0 and black 2 -> 0 of 180; every other row the
same (flat 89 / 89 / 90, touching 82 / 85 / 90 of 90, white / red / black). Then white dice too, where the band
keeps the board's tint rather than the die's (`nearer_hue`): one leaning, white 4 -> 0 of 180; every other row the
same.
2026-11-30, the tenth session: the touching pairs drawn touching, no longer into each other (tests/vision/simthrows.py
`sim_touching`), and the crevice between two dice left to the face read beside it (vision/lean.py OTHER_EDGE): with the
table before, touching 30 / 29 / 30 of 30 (white / red / black, seeds 20-29; 27 / 30 / 30 on the old scenes); every
other row the same.
2026-12-01, the same options, with "values wrong" printed: of every wrong `ok` of ours only one gave another value, a
rendered red 6 leaning about 53 degrees read a 4 with a die size and a board; a colour read no longer overrules the
Lab reader's slant unless the net is sure of its value (vision/bodyread.py `read_body`): a leaning die of each value,
calibrated 83 -> 73 of 216 (values wrong 1 -> 0), uncalibrated 78 -> 75; and a light-pip pass's lean check leaves
the faces earlier passes read to them (vision/darkpips.py `others`): red touching 27 -> 28 and, with the table
before, 29 -> 30 of 30. Every other row the same. Then the pip pass's lattice without its corners, calibrated near
overhead (vision/darkpips.py `_LATTICE_CAL`; that red pair then reads with or without `others`): every row the same,
and with `--steep-seeds 20` too.
Dice leaning freely, read from above (2026-11-30, `--covered 0 --sim-seeds 0 --table-seeds 0 --steep-seeds 40`),
ours calibrated with the table before: one leaning, wrong `ok`s white 22, red 35, black 29 of 240 (leaning 15
degrees: 20 / 22 / 20 of 80; 25: 2 / 9 / 6; 35: 0 / 4 / 3); without the table before 31 / 36 / 31; uncalibrated
0 / 4 / 5 (it reads almost nothing there: flat pairs 0 of 80 white); the peer 71 / 56 / 82. Read right with the
table before: two flat 61 / 47 / 46 of 80, touching 41 / 33 / 23. The weak side: docs/vision.md, "Known limits".
The same options after a 4's or 5's grid read from above was held to MAX_SKEW_ABOVE (vision/darkpips.py), with the
table before: white 18, red 24, black 21 of 240 (leaning 15 degrees: 16 / 14 / 13 of 80; 25: 2 / 6 / 5; 35: 0 / 4 /
3); without it 25 / 26 / 23; two flat and touching read right as before.
A soft picture (2026-11-30, `--covered 0 --sim-seeds 0 --table-seeds 0 --soft-seeds 100`, after vision/focus.py), right
verdicts / wrong `ok`s of 100: plain throws sharp 99 / 0, blurred 0.75 px 100 / 0, 1 px 81 / 0, 1.25 px and more 0 / 0
(refused as too soft); cocked 100 / 0 at every blur (before the check, 1.5 px: 89 / 11, 2 px: 76 / 24, 1.5 px with
noise or JPEG 92 / 8 and 89 / 11); off-board and stacked 100 / 0 throughout.
A picture smeared by motion (2026-12-02, `--covered 0 --sim-seeds 0 --table-seeds 0 --smear-seeds 20`, 1m26s; plain
throws right / cocked throws refused / wrong `ok`s of 120, at 3, 4, 5, 6 and 8 px): white 120 / 120 / 0, 11 / 120 / 0,
then 0 / 120 / 0; red 120 / 120 / 0, 83 / 120 / 0, 1 / 120 / 0, then 0 / 120 / 0; black the same but 86 at 4 px and 2
at 5. Before red and black dice were checked for a smear (vision/focus.py MAX_SMEAR_LIGHT_PIPS): red 4 px 120, 5 px
116, 6 px 112, 8 px 76 / 119 / 1; black 120, 115, 101, 46 / 120 / 0; white the same. (With the limit at 0.047, as it
first stood: red 4 and 5 px 120 and 23, black 120 and 28; no wrong `ok`.)
The same (2026-12-02, the session after, 3m49s) with the Pi unit's view added and white dice's limit following the
die's size (vision/focus.py SMEAR_PX_PER_DIE_PX): 640x480 as above but white 3 at 4 px (11 before); the Pi unit's
view, white 2 / 120 / 0 at 3 px, then 0 / 120 / 0 (before: 120 / 120 / 0, 8 / 120 / 0, 2 / 119 / 1, then 0 / 120 /
0); red 119 / 120 / 0, 35 / 120 / 0, 4 / 120 / 0, then 0 / 120 / 0; black 120, 45 and 6, likewise (both unchanged).
Red and black dice blurred at the Pi unit's view (2026-12-02, `--covered 0 --sim-seeds 0 --table-seeds 0 --soft-pi-seeds
20`, 1m18s; plain right / cocked refused / wrong `ok` of 20 at 1, 1.25, 1.5 and 2 px): red 20/20/0, 18/20/0, 0/20/0,
0/20/0; black 20/20/0, 20/20/0, 1/20/0, 0/20/0. Before vision/focus.py MAX_BLUR_LIGHT_PIPS: red 20/20/0, 20/20/0,
20/19/1, 20/17/3; black 20/20/0 at each.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np
from numpy.typing import NDArray

from bench import models
from bench.peer_blobcluster import read_dice_peer
from calibration.model import Calibration
from hardware.simcam import DICE_LOOKS, SimulatedCamera
from tests.vision.camera_looks import blur, jpeg, noise
from tests.vision.render import DieSpec, cover, motion_blur, render
from tests.vision.simthrows import sim_table, sim_throw_before, sim_touching
from vision import Verdict, read_dice
from vision.change import changes
from vision.reading import DiceReading

Frame = NDArray[np.uint8]
W, H = 640, 480
TABLE = Calibration(image_size=(W, H), board_polygon=((0.0, 0.0), (W, 0.0), (W, H), (0.0, H)), die_size_px=40.0)
LOOKS = {"white": ((235, 238, 240), (25, 25, 25)), "black": ((40, 38, 36), (245, 245, 245)),
         "red": ((40, 40, 170), (245, 245, 245))}


BEFORE = "ours calibrated, with the table before"


def readers(cal: Calibration, before: Frame | None = None) -> dict[str, Callable[[Frame], DiceReading]]:
    """Ours calibrated, uncalibrated and the peer; with `before` (the table before the throw), also ours
    calibrated given it, as the roll watcher reads a throw (vision/sidepips.py)."""
    out: dict[str, Callable[[Frame], DiceReading]] = {
        "ours calibrated": lambda f: read_dice(f, cal, expect=2),
        "ours uncalibrated": lambda f: read_dice(f, expect=2),
        "peer": lambda f: read_dice_peer(f, 2)}
    if before is not None:
        out[BEFORE] = lambda f: read_dice(f, cal, expect=2, before=before)
    return out


class Tally:
    def __init__(self, title: str, before: bool = False) -> None:
        names = [*readers(TABLE), *([BEFORE] if before else [])]
        self.title, self.n, self.rows = title, 0, {name: [0, 0, 0, 0] for name in names}
        self.unknown = False  # a scene with a value not known (the simulated camera's leaning die): no misreads told

    def add(self, cal: Calibration, frame: Frame, values: tuple[int | None, ...], should_ok: bool,
            before: Frame | None = None) -> None:
        self.n += 1
        for name, read in readers(cal, before).items():
            r = read(frame)
            ok = r.verdict is Verdict.OK
            same = sorted(r.values, key=str) == sorted(values, key=str)
            row = self.rows[name]
            row[0] += ok
            row[1] += ok and (not should_ok or not same)
            row[2] += (ok and same) if should_ok else not ok
            row[3] += ok and not same and None not in values
        self.unknown |= None in values

    def show(self) -> None:
        print(f"{self.title} ({self.n} scenes):")
        for name, (ok, wrong, right, misread) in self.rows.items():
            told = "-" if self.unknown else misread
            print(f"  {name}: ok {ok}, wrong ok {wrong} (values wrong {told}), verdict right {right}")


def covered(n: int) -> None:
    rng = np.random.default_rng(0)
    colours = [(245, 245, 245), (40, 140, 40), (40, 40, 190), (120, 150, 200), (40, 40, 40)]
    t = Tally("a die partly covered")
    for seed in range(n):
        v, w = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        angle, share = float(rng.uniform(0, 90)), float(rng.uniform(0.2, 0.6))
        side, colour = int(rng.integers(0, 4)), colours[int(rng.integers(0, 5))]
        frame = render([DieSpec(v, (220, 200), angle=angle), DieSpec(w, (420, 300), angle=angle + 31)], seed=seed)
        cover(frame, (220, 200), 40.0, share, side, colour)
        t.add(TABLE, frame, (v, w), should_ok=True)
    t.show()


def leaning() -> None:
    by_value = {v: Tally(f"a leaning {v}") for v in range(1, 7)}
    for vi, v in enumerate(range(1, 7)):
        for squash in (0.6, 0.7, 0.8):
            for ai, angle in enumerate((0.0, 20.0, 45.0, 70.0)):
                for ci, (body, pip) in enumerate(LOOKS.values()):
                    frame = render([DieSpec(v, (250, 220), angle=angle, squash=squash, body=body, pip=pip),
                                    DieSpec(4, (420, 300), angle=30, body=body, pip=pip)],
                                   seed=vi * 100 + ai * 10 + ci)
                    by_value[v].add(TABLE, frame, (v, 4), should_ok=False)
    total = Tally("a leaning die of each value, all")
    for t in by_value.values():
        total.n += t.n
        for name, row in t.rows.items():
            total.rows[name] = [a + b for a, b in zip(total.rows[name], row, strict=True)]
    total.show()
    for v, t in by_value.items():
        print(f"  leaning {v}: " + ", ".join(f"{name} wrong ok {row[1]} ({row[3]} misread)"
                                             for name, row in t.rows.items()))


def simulated(seeds: int) -> None:
    for kind in ("ok", "off_board", "cocked", "stacked"):
        t = Tally(f"simulated camera, {kind} throws", before=True)
        for seed in range(seeds):
            frame, before, cal, truth = sim_throw_before(kind, seed)
            t.add(cal, frame, truth.values, truth.verdict is Verdict.OK, before)
        t.show()


# Seeds 0-19 chose vision/lean.py's refuse_open_sides constants: the bench reads the tables after them.
FIRST_TABLE_SEED = 20


def leaning_on_the_table(seeds: int, tilts: tuple[float, ...] = (0.0, 8.0, 18.0),
                         leans: tuple[float, ...] = (25.0, 35.0), where: str = "near overhead") -> None:
    for look in DICE_LOOKS:
        body, pip = DICE_LOOKS[look]
        lean = Tally(f"{look} dice, one leaning {where}", before=True)
        by_lean = {deg: Tally(f"leaning {deg:g} degrees", before=True) for deg in leans}
        flat = Tally(f"{look} dice, two flat on the same tables", before=True)
        touching = Tally(f"{look} dice, two flat touching", before=True)
        for tilt in tilts:
            cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt, die_bgr=body,
                                  pip_bgr=pip).calibration()
            for seed in range(FIRST_TABLE_SEED, FIRST_TABLE_SEED + seeds):
                for deg in leans:
                    frame, truth, _, before = sim_table(tilt, seed, 1, 1, deg, look)
                    values = tuple(v for v, _, _ in truth)
                    lean.add(cal, frame, values, should_ok=False, before=before)
                    if len(leans) > 2:
                        by_lean[deg].add(cal, frame, values, should_ok=False, before=before)
                frame, truth, _, before = sim_table(tilt, seed, 2, 0, 25.0, look)
                flat.add(cal, frame, tuple(v for v, _, _ in truth), should_ok=True, before=before)
                frame, values, before = sim_touching(tilt, seed, look)
                touching.add(cal, frame, values, should_ok=True, before=before)
        lean.show()
        if len(leans) > 2:
            for t in by_lean.values():
                print(f"  {t.title}: " + ", ".join(f"{name} wrong ok {row[1]} ({row[3]} misread)"
                                                   for name, row in t.rows.items()))
        flat.show()
        touching.show()


# Seeds 0-99 chose vision/focus.py's MAX_BLUR: the soft section reads the seeds after them.
FIRST_SOFT_SEED = 100
SOFT_LOOKS: dict[str, Callable[[Frame], Frame]] = {
    "sharp": lambda f: f,
    **{f"blur {s:g} px": blur(s) for s in (0.75, 1.0, 1.25, 1.5, 2.0)},
    "blur 1.5 px, noise 6": lambda f: noise(6.0)(blur(1.5)(f)),
    "blur 1.5 px, JPEG 60": lambda f: jpeg(60)(blur(1.5)(f)),
}


def soft(seeds: int) -> None:
    print(f"a soft picture: the simulated camera's white dice, read where the table changed with the table before "
          f"(seeds {FIRST_SOFT_SEED}-{FIRST_SOFT_SEED + seeds - 1}; right verdicts / wrong ok):")
    kinds = ("ok", "off_board", "cocked", "stacked")
    throws = {(k, s): sim_throw_before(k, s) for k in kinds for s in range(FIRST_SOFT_SEED, FIRST_SOFT_SEED + seeds)}
    for name, look in SOFT_LOOKS.items():
        line = []
        for k in kinds:
            right = wrong = 0
            for s in range(FIRST_SOFT_SEED, FIRST_SOFT_SEED + seeds):
                after, before, cal, truth = throws[(k, s)]
                a, b = look(after), look(before)
                r = read_dice(a, cal, changed=changes(b, a, cal.die_size_px or 0.0), before=b)
                ok, should = r.verdict is Verdict.OK, truth.verdict is Verdict.OK
                same = sorted(r.values, key=str) == sorted(truth.values, key=str)
                right += (ok and same) if should else not ok
                wrong += ok and (not should or not same)
            line.append(f"{k} {right} / {wrong}")
        print(f"  {name}: " + ", ".join(line))


# Seeds 1-320 chose vision/focus.py's MAX_SMEAR_LIGHT_PIPS (1-40 MAX_SMEAR, 1-120 SMEAR_PX_PER_DIE_PX): the smear
# section reads the seeds after.
FIRST_SMEAR_SEED = 321
SMEAR_PX = (3, 4, 5, 6, 8)
SMEAR_DEGREES = (0.0, 30.0, 60.0, 90.0, 120.0, 150.0)
SMEAR_VIEWS: dict[str, dict[str, Any]] = {"640x480": {}, "the Pi unit's view": {"size": (1280, 960), "die_mm": 7.6}}


def smeared(seeds: int) -> None:
    last = FIRST_SMEAR_SEED + seeds - 1
    print(f"a picture smeared by motion: the simulated camera's throws, read where the table changed with the table "
          f"before (seeds {FIRST_SMEAR_SEED}-{last}, {len(SMEAR_DEGREES)} directions each; plain throws right / "
          f"cocked throws refused / wrong ok, of {seeds * len(SMEAR_DEGREES)} a kind):")
    for (view, camera), look in itertools.product(SMEAR_VIEWS.items(), DICE_LOOKS):
        throws = _plain_and_cocked(look, FIRST_SMEAR_SEED, last, camera)
        line = [f"{length} px " + _plain_cocked(throws, [_smear(length, d) for d in SMEAR_DEGREES])
                for length in SMEAR_PX]
        print(f"  {view}, {look}: " + ", ".join(line), flush=True)


def _plain_and_cocked(look: str, first: int, last: int, camera: dict[str, Any]
                      ) -> list[tuple[Frame, Frame, Calibration, Any]]:
    """The simulated camera's plain and cocked throws of seeds `first`-`last`, dice of `look`, as sim_throw_before makes
    them with `camera`."""
    return [sim_throw_before(kind, seed, look=look, **camera) for kind in ("ok", "cocked")
            for seed in range(first, last + 1)]


def _smear(length: int, degrees: float) -> Callable[[Frame], Frame]:
    return lambda f: motion_blur(f, length, degrees)


def _plain_cocked(throws: list[tuple[Frame, Frame, Calibration, Any]], looks: list[Callable[[Frame], Frame]]) -> str:
    """Plain throws read right / cocked throws refused / wrong `ok`s, over `throws` (sim_throw_before's) each seen
    through each of `looks` (both frames alike), read as the roll watcher reads them."""
    plain = refused = wrong = 0
    for (after, before, cal, truth), look in itertools.product(throws, looks):
        a, b = look(after), look(before)
        r = read_dice(a, cal, changed=changes(b, a, cal.die_size_px or 0.0), before=b)
        ok, should = r.verdict is Verdict.OK, truth.verdict is Verdict.OK
        same = sorted(r.values, key=str) == sorted(truth.values, key=str)
        plain += should and ok and same
        refused += not should and not ok
        wrong += ok and (not should or not same)
    return f"{plain} / {refused} / {wrong}"


# Seeds 1-240 chose and held out vision/focus.py's MAX_BLUR_LIGHT_PIPS: the section reads the seeds after.
FIRST_SOFT_PI_SEED = 241
SOFT_PI_BLURS = (1.0, 1.25, 1.5, 2.0)


def soft_at_the_pi(seeds: int) -> None:
    last = FIRST_SOFT_PI_SEED + seeds - 1
    _red_and_black(f"a soft picture of red and black dice at the Pi unit's view (1280x960, dice of 26 px), read where "
                   f"the table changed with the table before (seeds {FIRST_SOFT_PI_SEED}-{last}; "
                   f"plain throws right / cocked throws refused / wrong ok, of {seeds} a kind):",
                   FIRST_SOFT_PI_SEED, seeds, SMEAR_VIEWS["the Pi unit's view"],
                   {f"{s:g} px": [blur(s)] for s in SOFT_PI_BLURS})


def _red_and_black(title: str, first: int, seeds: int, camera: dict[str, Any],
                   looks: dict[str, list[Callable[[Frame], Frame]]]) -> None:
    """Prints `title`, then for red and black dice a line of _plain_cocked's counts over seeds `first` on (`seeds` of
    them, made with `camera`), a count for each of `looks` (its name: the frames' changes it is read through)."""
    print(title)
    for look in ("red", "black"):
        throws = _plain_and_cocked(look, first, first + seeds - 1, camera)
        counts = [f"{name} " + _plain_cocked(throws, fs) for name, fs in looks.items()]
        print(f"  {look}: " + ", ".join(counts), flush=True)


# Seeds 1-180 chose and held out the light-pipped dice's limits under 26 px (vision/focus.py LIGHT_BLUR_PX_PER_DIE_PX,
# LIGHT_SMEAR_PX_PER_DIE_PX): the section reads the seeds after.
FIRST_SMALL_SEED = 181
WEBCAM_VIEW: dict[str, Any] = {"size": (1280, 720), "die_mm": 7.6}


def small_light_pipped(seeds: int) -> None:
    looks = {f"blur {s:g} px": [blur(s)] for s in (0.75, 1.0, 1.25)}
    looks.update({f"smear {n} px": [_smear(n, d) for d in SMEAR_DEGREES] for n in (3, 4)})
    _red_and_black(f"red and black dice of 19.35 px (a webcam at 1280x720 over a real board), read where the table "
                   f"changed with the table before (seeds {FIRST_SMALL_SEED}-{FIRST_SMALL_SEED + seeds - 1}; plain "
                   f"throws right / cocked throws refused / wrong ok, of {seeds} a kind and look, smears over six "
                   "directions):", FIRST_SMALL_SEED, seeds, WEBCAM_VIEW, looks)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--covered", type=int, default=300)
    ap.add_argument("--sim-seeds", type=int, default=40)
    ap.add_argument("--table-seeds", type=int, default=30,
                    help="seeds per view of the tables with dice leaning near overhead (from seed 20)")
    ap.add_argument("--steep-seeds", type=int, default=0,
                    help="seeds per view of the same tables seen 35 and 45 degrees off vertical, read from above, "
                         "a die leaning 15, 25 or 35 degrees (from seed 20; 0: none)")
    ap.add_argument("--soft-seeds", type=int, default=0,
                    help="seeds per kind of the simulated camera's throws read blurred (from seed 100; 0: none)")
    ap.add_argument("--soft-pi-seeds", type=int, default=0,
                    help="seeds per kind and dice of red and black throws at the Pi unit's view read blurred (from "
                         "seed 241; 0: none)")
    ap.add_argument("--smear-seeds", type=int, default=0,
                    help="seeds per kind and dice of the simulated camera's throws read smeared (from seed 321; 0: "
                         "none)")
    ap.add_argument("--small-seeds", type=int, default=0,
                    help="seeds per kind of red and black throws of 19.35 px dice read blurred and smeared (from seed "
                         "181; 0: none)")
    models.add_option(ap)
    args = ap.parse_args()
    models.apply_option(ap, args)
    cv2.setNumThreads(1)
    covered(args.covered)
    leaning()
    simulated(args.sim_seeds)
    if args.table_seeds:
        leaning_on_the_table(args.table_seeds)
    if args.steep_seeds:
        leaning_on_the_table(args.steep_seeds, (35.0, 45.0), (15.0, 25.0, 35.0), "read from above")
    if args.soft_seeds:
        soft(args.soft_seeds)
    if args.soft_pi_seeds:
        soft_at_the_pi(args.soft_pi_seeds)
    if args.smear_seeds:
        smeared(args.smear_seeds)
    if args.small_seeds:
        small_light_pipped(args.small_seeds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
