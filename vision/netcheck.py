"""The dice net's say on the dice the pip and body readers found (vision/dicenet.py is the net itself).

Pure, given the net: the reader's dice, their problems and the pip-like marks seen on each, in; the same lists
changed in place, out. The net refuses pip reads it does not back (a leaning die, another value, no die's top
face, a die partly covered), gives values to dice the pip readers found but could not read, turns die-sized
bodies and groups of spots into dice, and (uncalibrated) re-centres candidates found off their die's centre.
Its thresholds come from the held-out folds of the Byler photos (docs/vision.md, "The dice net").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from vision.dicenet import NO_DIE, NetRead
from vision.reading import Die, UnsureDie

U8 = NDArray[np.uint8]

# The dice net (vision/dicenet.py). It gives a value to a die the pip readers found but could not read when its
# probability is at least NET_ACCEPT, and refuses a pip read when it gives another value at least NET_VETO.
# Both come from the held-out folds of the Byler photos (vision/models/dicenet.json): at 0.9 the fold models,
# on the photos they never saw, read 86.9% of the labelled dice and 99.8% of those right (1557/1560; the
# worst fold 99.3%).
NET_ACCEPT = 0.9
NET_VETO = 0.9
# A die the pip readers could not read takes the net's value at NET_AGREE already when they counted exactly
# that many pip-like marks on it: two readers that agree on the count. A die-sized body with no pip-like mark
# at all (low-contrast pips) takes it at NET_ACCEPT_BODY: there the net is the only reader, and nothing the
# pip readers saw speaks against it. A die whose marks disagree with the net keeps NET_ACCEPT: the pip
# readers' trouble (a mark that is no pip, pips off the grid) is evidence against an easy read. Chosen on the
# held-out Byler reads (docs/vision.md; tried: agreement 0.8 and 0.6, bodies 0.85 and 0.8): agreement at 0.6
# added 19 dice, none wrong; bodies at 0.8 added 44 more, 43 right (the other a 5 read as 6, in a throw
# refused for another die). Taking the net's value at 0.8 for every unread die instead made one throw a
# wrong `ok` (a dark 1 with a smudged pip, one mark, read 3 at 0.87).
NET_AGREE = 0.6
NET_ACCEPT_BODY = 0.8
# The refusals after which the pip readers' count still stands for NET_AGREE: a stray mark, a lone pip off
# an outline that missed, a blob cut in two, two readers or channels that differ. Refusals about the face's
# geometry (no d6 layout, off the grid, an oblong body) are not among them: a leaning die's top face fails
# that way, and its count agreeing with the net is no comfort (simulated camera, seed 160: a leaning 5,
# "pips do not form a d6 layout", read 5 by the net at 0.81).
COUNT_STANDS = ("a mark on the face that is not a pip", "a pip-like mark where the layout has none",
                "single pip off the face centre", "a part of a larger blob", "read two ways",
                "channels read as different faces")
# Probability of a leaning die beyond which a die is refused as cocked, whatever its pips say: on the
# held-out Byler folds (flat dice only) the fold models give 0.3 or more to 1 of 1,795 real dice; on the
# simulated camera's leaning dice (a renderer they never saw) to 62-85 of 100, and to none of its flat dice.
NET_COCKED = 0.3
# Probability the net must give a pip read's value for the read to stand: the pip readers count the marks
# they see, and a die partly covered (a hand, a house, a card over it) shows fewer pips in a legal layout
# (a 2's one visible pip, a 6's one row), which they read as another face; the net, seeing the crop as a
# whole, does not back such a read. Held out on Byler, 1 of 1,200 pip reads that stood had P(value) < 0.5
# (a wrong one) and none of 684 on the simulated camera had less than 0.6; on rendered dice partly covered,
# calibrated, it refuses 8 of the 9 wrong `ok`s in 300 throws (tests/vision/test_dicenet.py, docs/vision.md).
NET_SUPPORT = 0.5
# Probability of "no die's top face centred here" beyond which a pip read is refused: pips of a side face,
# of a die below another, read as a face.
NET_NO_DIE = 0.7
# Probability of "no die here" beyond which a body on which the Lab reader saw nothing pip-like is not read
# by the colour reader either (it stays a pipless body, which counts only if the net reads a die there).
NET_NOT_A_DIE = 0.9
# Reasons the pip readers give for a die that is physically not a flat, still, single die: the net is not
# asked to overrule them (its leaning class is learned from rendered dice only, and it has no stacked class).
HARD_REASONS = ("cocked", "stacked", "motion blur", "on an oblong body")
# A candidate the net gives "no die's top face centred here" a probability between these is taken to be off
# its die's centre: a blob cut in two or merged with a neighbour, a face refused for its geometry whose
# centre came from a bad fit. The net is asked again on a 3x3 grid a fifth of a die apart, then a tenth,
# around the best point so far (the one where "no die" is least likely), and reads the die from there. Below
# RECENTRE_FROM the candidate is centred already; from RECENTRE_TO on the net sees no die near it (on the
# held-out Byler reads, 2,461 candidates at 0.8 or more gave 5 dice; re-centring them took 90% of the time).
# Searching from every unread candidate with any "no die" at all gained 52 dice and 2 wrong ones, dark dice
# with glare whose value the net already read wrong at the start: there the candidate was centred (P(no
# die) 0.00-0.01), and the search only raised the net's confidence in its wrong read past the level.
# Uncalibrated reads only (see read_dice).
RECENTRE_FROM = 0.2
RECENTRE_TO = 0.8
RECENTRE_STEPS = (0.2, 0.1)  # grid steps, die sizes
# Probability of "no die" below which a die-sized body with nothing pip-like on it is a die for certain, whatever
# the net makes of its value: RECENTRE_FROM, under which a candidate is taken as centred on a die's top face.
# Where no count of dice is expected (`tableside read --expect any`), one it cannot read is kept as an unread
# die (UnsureDie): passed over, the throw lost a die without a word and was `ok` with the wrong total (Byler
# IMG_20191209_100023: a glinting black 4, dice [3, 5, 4] `ok`, total 12 of 16). Held out, read with no count
# expected, over the photos as taken and 14 looks: photos `ok` and wrong 658 -> 50 (as taken 49 -> 3), `ok` and
# right 1,981 -> 1,974 (as taken 152 either way); 0.05 and 0.1 left more `ok` and wrong. Where a count is
# expected the count already refuses a throw a die short: kept there too, over the photos as taken and 7 looks,
# photos `ok` and wrong stayed 5 and `ok` and right went 973 -> 965 (in those looked at, a body the net took
# for a die that no label has: one die too many), so they are not kept there (docs/vision.md, "With no count
# of dice expected").
NET_IS_DIE = RECENTRE_FROM
# A die placed by a search (re-centred, or a group of spots) this close to another die (die sizes) is that
# die read a second time: two dice resting side by side have their centres a whole side apart or more.
SAME_DIE = 0.7

# Pipless bodies of dark-pipped dice (M.DICE.2; consult_net `read_pipless`, vision/reader.py): where the look is
# calibrated as pips darker than the body (white dice with black pips: vision/look.py), a die-sized body on
# which no reader saw anything pip-like does not take the net's value. Such pips show whatever the light, so a
# flat die's top face is never without them, and what the net reads there is a die leaning with its faces
# edge-on, the side of one, or the board. It is an unreadable die instead, which refuses the throw. On the
# simulated table (2026-11-29, white dice, where the table changed) bodies read so made only refused throws
# and wrong `ok`s: none at the usual 31 px in 160 throws; at 640x480 with dice of 24 px a leaning die read as a
# 1 (seeds 1-20, cocked 13), of 18 px a plain 3-4 read as 3-1 and a leaning die read so too (seed 10).

class NetReader(Protocol):
    def read(self, frame: U8, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]: ...


class Remembering:
    """A net that answers once per centre in one frame: the body pass and consult_net ask at the same points."""

    def __init__(self, net: NetReader) -> None:
        self.net = net
        self.known: dict[tuple[float, float, float], NetRead] = {}

    def read(self, frame: U8, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
        new = [c for c in dict.fromkeys(centres) if (c[0], c[1], die) not in self.known]
        for c, r in zip(new, self.net.read(frame, new, die) if new else (), strict=True):
            self.known[(c[0], c[1], die)] = r
        return tuple(self.known[(c[0], c[1], die)] for c in centres)

def consult_net(net: NetReader, frame: U8, die: float, dice: list[Die], problems: list[str], marks: list[int],
                 pipless: list[Die], groups: Sequence[Die] = (), search: bool = True,
                 keep_unread: bool = False, read_pipless: bool = True, glance: NetReader | None = None) -> None:
    """The net's say on every die found (in place).

    A pip read is refused when the net calls the die cocked, confidently reads another value, sees no
    die's top face there, or does not back the value read (NET_SUPPORT: a die partly covered). A die the
    pip readers could not read for no physical reason takes the net's value when the net is sure of it (or
    fairly sure, and it is the number of pip-like marks the pip readers counted) and not of a leaning die.
    A pipless body becomes a die when the net is fairly sure of its value, a cocked (unreadable) die
    when the net is sure it leans, and, with `keep_unread` (no count of dice expected), an unreadable die
    when the net is sure only that a die is there (NET_IS_DIE); a group of spots (vision/candidates.py)
    becomes a die only when the net is sure of its value. With `search`, unread candidates the net finds off
    centre are re-centred first (RECENTRE_FROM); a die placed that way where another die already is is
    dropped (SAME_DIE); `glance`, where given, chooses the search's points (recentre). Without `read_pipless`
    (dark-pipped dice: the note above NetReader), a pipless body the net reads a value on is an unreadable die
    instead."""
    found = dice + pipless + list(groups)
    # Whether each candidate's place came from a search (a group of spots, or re-centred), not from a face or
    # a body found directly.
    searched = [False] * (len(dice) + len(pipless)) + [True] * len(groups)
    reads = list(net.read(frame, [d.center for d in found], die))
    todo = [i for i, (d, n) in enumerate(zip(found, reads, strict=True))
            if search and d.value is None and RECENTRE_FROM <= n.probs[NO_DIE] < RECENTRE_TO
            and not (i < len(dice) and hard(problems[i]))]
    for i, (c, n) in zip(todo, recentre(net, frame, die, [found[i].center for i in todo], glance)
                                         if todo else (),
                         strict=True):
        if c != found[i].center:
            found[i] = replace(found[i], center=c)
            searched[i] = True
        reads[i] = n
    n_dice = len(dice)
    dice[:] = found[:n_dice]
    placed = searched[:n_dice]
    for i, (d, why, seen, n) in enumerate(zip(dice, problems, marks, reads, strict=False)):
        if d.value is not None:
            refusal = net_refusal(d.value, n)
            if refusal:
                dice[i] = replace(d, value=None, confidence=0.0)
                problems[i] = refusal
        elif not hard(why) and (
                net_sure(n, NET_ACCEPT)
                or (n.value == seen and any(c in why for c in COUNT_STANDS) and net_sure(n, NET_AGREE))):
            dice[i] = replace(d, value=n.value, confidence=n.confidence)
            problems[i] = ""
    def taken(d: Die) -> bool:  # a die found already lies within half a die: this is that die again
        return any(np.hypot(d.center[0] - o.center[0], d.center[1] - o.center[1]) < 0.5 * die for o in dice)

    unread: list[tuple[Die, NetRead]] = []  # pipless bodies the net is sure are dice, of no value (NET_IS_DIE)
    for k in range(n_dice, len(found)):
        d, n, body = found[k], reads[k], k < n_dice + len(pipless)
        if taken(d):
            continue
        if body and not read_pipless and net_sure(n, NET_ACCEPT_BODY):
            dice.append(replace(d, value=None, confidence=0.0))
            problems.append(f"no pips seen on a die whose pips are darker than its body (the net reads {n.value} "
                            f"at p {n.confidence:.2f})")
        elif net_sure(n, NET_ACCEPT_BODY if body else NET_ACCEPT):
            dice.append(replace(d, value=n.value, confidence=n.confidence))
            problems.append("")
        elif body and n.value is None and n.cocked >= NET_ACCEPT:
            dice.append(replace(d, value=None, confidence=0.0))
            problems.append(f"cocked: the net sees a leaning die (p {n.cocked:.2f})")
        elif keep_unread and body and n.probs[NO_DIE] < NET_IS_DIE and n.cocked < NET_COCKED:
            unread.append((d, n))
            continue
        else:
            continue
        placed.append(searched[k])
    # A die placed by a search gives way to one found directly, and to a better one placed by a search.
    order = sorted(range(len(dice)), key=lambda i: (not placed[i], dice[i].value is not None, dice[i].confidence),
                   reverse=True)
    kept = {order[j] for j in apart([dice[i].center for i in order], SAME_DIE * die,
                                     [not placed[i] for i in order])}
    dice[:] = [d for i, d in enumerate(dice) if i in kept]
    problems[:] = [p for i, p in enumerate(problems) if i in kept]
    # Last, the bodies the net is sure are dice but cannot read, where no die found otherwise (a group of spots
    # the net read there, a die re-centred onto it) already accounts for them, by the same half a die as above.
    for d, n in unread:
        if not taken(d):
            best = max(range(1, 7), key=lambda v: n.probs[v])
            dice.append(UnsureDie.of(d))
            problems.append(f"no pips seen on a die, and the net not sure of its value ({best} at p "
                            f"{n.probs[best]:.2f})")


def recentre(net: NetReader, frame: U8, die: float, centres: list[tuple[float, float]],
             glance: NetReader | None = None) -> list[tuple[tuple[float, float], NetRead]]:
    """Each centre moved to where the net finds a die's top face best centred (least "no die"), and the
    net's read there: a 3x3 grid at each of RECENTRE_STEPS around the best point so far (the first grid's
    middle is the centre itself, and the net's answers are remembered, so 16 new crops a candidate).

    `glance`: the net asked more cheaply (dicenet.Glance: one view of each crop), to choose the points by; the
    read kept is then `net`'s at the point chosen."""
    best = list(centres)
    reads: list[NetRead] = []
    for step in RECENTRE_STEPS:
        pts = [(x + dx * step * die, y + dy * step * die) for x, y in best for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        rs = (glance or net).read(frame, pts, die)
        best, reads = [], []
        for k in range(len(centres)):
            j = min(range(9), key=lambda m: (rs[9 * k + m].probs[NO_DIE], m != 4))
            best.append(pts[9 * k + j])
            reads.append(rs[9 * k + j])
    if glance is not None:
        reads = list(net.read(frame, best, die))
    return list(zip(best, reads, strict=True))


def hard(why: str) -> bool:
    return any(h in why for h in HARD_REASONS)


def net_refusal(value: int, n: NetRead) -> str:
    """Why the net refuses a pip read of `value` ("" when it does not)."""
    if n.cocked >= NET_COCKED:
        return f"cocked: the net sees a leaning die (p {n.cocked:.2f})"
    if n.value is not None and n.value != value and n.confidence >= NET_VETO:
        return f"the pips read {value}, the net {n.value}"
    # (P(no die) >= NET_NO_DIE leaves the value under NET_SUPPORT too: asked first for its sharper reason.)
    if n.probs[NO_DIE] >= NET_NO_DIE:
        return f"the pips read {value} where the net sees no die's top face (p {n.probs[NO_DIE]:.2f})"
    if n.probs[value] < NET_SUPPORT:
        return f"the pips read {value}, the net gives it p {n.probs[value]:.2f}: a die partly covered or misread"
    return ""


def net_sure(n: NetRead, at: float) -> bool:
    return n.value is not None and n.confidence >= at and n.cocked < NET_COCKED


def apart(centres: Sequence[tuple[float, float]], near: float,
           fixed: Sequence[bool] | None = None) -> list[int]:
    """Indices of `centres`, taken in order (best first), each kept unless within `near` of one kept
    before it; a `fixed` one is kept whatever lies near it."""
    kept: list[int] = []
    for i, (cx, cy) in enumerate(centres):
        if (fixed is not None and fixed[i]) or all(
                np.hypot(cx - centres[k][0], cy - centres[k][1]) >= near for k in kept):
            kept.append(i)
    return kept
