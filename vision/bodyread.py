"""A die's face read from its body (the body-first pass of vision/reader.py): each die-sized body the segmentation
found that no pip-first face accounts for, read by the Lab-contrast reader, the colour reader and the dice net.

Pure: arrays in, faces out. The reader turns what is returned into dice and their problems.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.bodies import Body
from vision.colourpips import read_colour_face
from vision.dicenet import NO_DIE, NetRead
from vision.faces import Face, motion_smear, outline, read_face
from vision.lightface import LightFace
from vision.look import DieLook
from vision.netcheck import NET_ACCEPT, NET_NO_DIE, NET_NOT_A_DIE, NetReader, apart, hard, net_sure

U8 = NDArray[np.uint8]

# Edge steepness across vs along the worst direction beyond which a die is smeared by motion. Dice read on
# the Byler photos (at rest) measure 1.02-1.44; a smear of 1/8 of a die's side already gives about 1.5.
MAX_SMEAR = 1.8


def covered(xy: tuple[float, float], light: list[LightFace]) -> bool:
    """Whether a pip-first face already accounts for the die centred at `xy`."""
    return any(np.hypot(xy[0] - f.centre[0], xy[1] - f.centre[1]) < 0.6 * f.side for f in light)


def candidate_faces(frame: U8, seg_bodies: tuple[Body, ...], die: float, light: list[LightFace],
                    net: NetReader, look: DieLook | None = None, valleys: bool = False) -> list[tuple[Body, Face]]:
    """Each die-sized body's face. `valleys` (uncalibrated): the colour reader's packed pips measured to the
    valleys between them, as the pip passes' are (pips.VALLEY_ELONG)."""
    todo: list[tuple[Body, Square, float, bool]] = []
    for b in seg_bodies:
        side = max(float(np.sqrt(b.area)), 0.5 * (b.size[0] + b.size[1]))
        if side < 0.5 * die or side > 2.0 * die:
            continue
        if covered(b.center, light):
            continue  # already read from its pips: reading its body too (the costly part) would be wasted
        if look is not None and look.unlike(frame, b.center, side, die):
            continue  # not the colour of this table's dice: the board's letters, squares, tokens
        raw = (b.center, side, b.angle)
        split = b.split
        # The blob's outline is smoothed by morphology and may carry a shadow: re-find the die locally.
        tight = outline(frame, b.center, side, die)
        if tight is not None and (not b.split or tight[1][0] * tight[1][1] < 1.3 * die * die):
            b = Body(tight[0], tight[1], tight[2], False, tight[1][0] * tight[1][1], b.overlap)
            side = 0.5 * (tight[1][0] + tight[1][1])
        todo.append((b, raw, side, split))
    # One batch for the net (remembered: consult_net asks again at the same centres).
    reads = net.read(frame, [b.center for b, _, _, _ in todo], die)
    out = []
    for (b, raw, side, split), n in zip(todo, reads, strict=True):
        if b.overlap:
            face = Face(None, 0.0, "stacked or overlapping dice", (b.center,))
        else:
            w, h = b.size
            squarish = min(w, h) > 0 and max(w, h) / min(w, h) < 1.35
            face = read_body(frame, raw, (b.center, side, b.angle), split, n, look.dark_pips if look else None,
                             squarish, valleys)
            if face.value in (2, 3) and not squarish:
                # Two or three pips lie on a line, whose slant cannot be measured: on an oblong body they may
                # be a side face seen obliquely (the simulated camera's stacked pair, seed 93: the lower
                # die's side face, cut from the top die by carving, read as a 3).
                face = Face(None, 0.0, "a 2 or 3 on an oblong body: maybe a side face at a slant", face.pips)
            if (face.value is not None or squarish) and motion_smear(frame, b.center, side) > MAX_SMEAR:
                # Smeared pips may vanish altogether: a smeared die-shaped blob still counts as a die.
                face = Face(None, 0.0, "motion blur", face.pips or (b.center,))
        out.append((b, face))
    return _dedupe(out, die)


Square = tuple[tuple[float, float], float, float]  # centre, side, angle (degrees)


def read_body(frame: U8, blob: Square, tight: Square, split: bool, n: NetRead,
              dark_pips: bool | None = None, squarish: bool = False, valleys: bool = False) -> Face:
    """A die's face from its body: pips in any colour channel (around the segmented blob: the colour
    reader finds the die's outline itself, and a tight outline that lost part of the die let it read 6s
    as 4s), else the Lab-contrast reader (around the tight outline). Two values read must agree.

    On a part cut out of a larger blob, a Lab read of 1-3 pips is not trusted: a die cut in two reads as two
    such faces (a 6 as two 3s, a 2 as two 1s; Byler: 5 of 8 wrong values), while the colour reader, whose
    window takes in the whole die, is.

    The colour reader is the costly part of a frame's read (eight morphological maps per die), and is not
    run where a third opinion adds nothing, where its answer could not change the verdict, or where the net
    is sure there is no die at all:
    - the Lab reader and the net (`n`) agree, the net sure: the face has the surer one's confidence, as a die
      the net reads alone has the net's;
    - the net sees no die's top face (>= NET_NO_DIE) where the Lab reader found pips: consult_net refuses
      any value read there, so the body is an unreadable die whatever the colour reader says;
    - the net is sure there is no die (>= NET_NOT_A_DIE) where the Lab reader found nothing pip-like: the
      body stays pipless and is passed over, where pips the colour reader found would have made it an
      unreadable die;
    - the Lab reader found no value for no physical reason (not cocked, stacked, smeared) on a square body
      (`squarish`), and the net is sure of one: consult_net gives the die the net's value. Held out on Byler
      the colour reader was asked 813 times; in 506 of them this was the case, and it read the net's value
      (155) or nothing (351), never another value: its answer changed the die's confidence only. An oblong
      body is still read (a 2 or 3 there is refused, candidate_faces), as is a Lab refusal for a physical
      reason (which a colour read overrules).
    Byler, held out, against the colour reader always run: the same reads, bar 4 more dice read (all right:
    Lab reads below MIN_CONFIDENCE that now carry the net's confidence), and 13% less time per 640x640
    photo (58.6 -> 51.1 ms); the simulated camera's verdicts over 240 throws of each kind are unchanged."""
    lab = read_face(frame, *tight)
    if split and lab.value is not None and lab.value <= 3:
        lab = Face(None, 0.0, "a part of a larger blob read as a face of 3 or fewer pips", lab.pips)
    if lab.value is not None and n.value == lab.value and net_sure(n, NET_ACCEPT):
        return replace(lab, confidence=max(lab.confidence, n.confidence))
    if n.probs[NO_DIE] >= (NET_NO_DIE if lab.value is not None or lab.pips else NET_NOT_A_DIE):
        return lab
    if squarish and lab.value is None and not hard(lab.reason) and net_sure(n, NET_ACCEPT):
        return lab  # consult_net gives it the net's value
    col = read_colour_face(frame, *blob, dark_pips=dark_pips, valleys=valleys)
    if col.value is not None and lab.value is not None and col.value != lab.value:
        return Face(None, 0.0, "the face's pips read two ways", col.pips)
    if col.value is not None and hard(lab.reason) and not (n.value == col.value and net_sure(n, NET_ACCEPT)):
        # The Lab reader measured the top face at a slant (M.DICE.2): the colour reader's value overrules that
        # only where the net is sure of the same value. A red 6 leaning 53 degrees (bench/refusals.py, squash
        # 0.6, turned 70) was read a 4 from four of its pips, the net backing 4 at 0.52 only.
        return Face(None, 0.0, lab.reason, col.pips)
    if col.value is not None:
        return col
    return lab


def _dedupe(found: list[tuple[Body, Face]], die: float) -> list[tuple[Body, Face]]:
    """Two candidates closer than half a die are one die seen twice (a blob cut in two): keep the better."""
    def rank(bf: tuple[Body, Face]) -> tuple[bool, float, int]:
        return (bf[1].value is not None, bf[1].confidence, len(bf[1].pips))

    ranked = sorted(found, key=rank, reverse=True)
    return [ranked[i] for i in apart([b.center for b, _ in ranked], 0.5 * die)]
