"""Groups of dark spots as places to ask the dice net (vision/candidates.py), and the reader's search for a
die's centre (vision/reader.py: RECENTRE_FROM, SAME_DIE), with stand-in nets whose answers the test fixes."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from tests.vision.render import DieSpec, render
from tests.vision.test_dicenet import FixedNet
from vision import Verdict, read_dice
from vision.candidates import LINK, MAX_EXTENT, MAX_FREE, SIMILAR, spot_clusters
from vision.darkpips import LightPass
from vision.dicenet import COCKED, N_CLASSES, NO_DIE, NetRead
from vision.netcheck import (
    NET_ACCEPT,
    NET_ACCEPT_BODY,
    RECENTRE_FROM,
    RECENTRE_STEPS,
    RECENTRE_TO,
    SAME_DIE,
    consult_net,
    recentre,
)
from vision.pips import Candidates
from vision.reader import _spot_groups
from vision.reading import Die

DIE = 40.0


def _face(centre: tuple[float, float], value: int, g: float = 10.0) -> list[tuple[float, float]]:
    cells = {2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
             6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}[value]
    return [(centre[0] + u * g, centre[1] + v * g) for u, v in cells]


def _spots(pts: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    return np.array(pts, np.float64).reshape(-1, 2), np.full(len(pts), 50.0)


def test_a_face_of_spots_is_one_group_centred_on_the_face() -> None:
    xy, peak = _spots(_face((100, 120), 6) + _face((300, 120), 3))
    got = sorted(spot_clusters(xy, peak, DIE, []))
    assert [c for c, _ in got] == [pytest.approx((100.0, 120.0)), pytest.approx((300.0, 120.0))]
    assert [n for _, n in got] == [6, 3]


def test_a_face_missing_a_pip_is_still_a_group_near_its_centre() -> None:
    xy, peak = _spots(_face((100, 120), 6)[1:])
    (((x, y), n),) = spot_clusters(xy, peak, DIE, [])
    assert n == 5
    assert np.hypot(x - 100, y - 120) < 0.15 * DIE


def test_groups_near_a_die_found_lone_spots_and_wide_or_crowded_groups_are_not_candidates() -> None:
    near = _face((100, 120), 5)
    assert spot_clusters(*_spots(near), DIE, [(105.0, 118.0)]) == []
    assert spot_clusters(*_spots([(100.0, 100.0)]), DIE, []) == []
    # A line of spots (lettering, a board's edge) spaced within LINK but wider than a face.
    step = 0.9 * LINK * DIE
    line = [(100.0 + i * step, 200.0) for i in range(int(MAX_EXTENT / 0.9 / LINK) + 2)]
    assert spot_clusters(*_spots(line), DIE, []) == []
    crowd = [(100.0 + 4 * (i % 4), 100.0 + 4 * (i // 4)) for i in range(12)]
    assert spot_clusters(*_spots(crowd), DIE, []) == []


def test_on_a_textured_frame_only_the_strongest_free_spots_are_grouped() -> None:
    rng = np.random.default_rng(1)
    noise = rng.uniform(0, 5000, (4 * MAX_FREE, 2))
    xy = np.concatenate([noise, np.array(_face((2500, 2500), 6))])
    peak = np.concatenate([np.full(len(noise), 20.0), np.full(6, 90.0)])
    got = spot_clusters(xy, peak, DIE, [])
    assert any(np.hypot(x - 2500, y - 2500) < 1 for (x, y), _ in got)


def test_a_face_linked_to_weaker_spots_round_it_is_grouped_again_from_its_pips() -> None:
    """SIMILAR, `regroup` (the round and long spots a blur leaves, reader._spot_groups): a 6's pips with weak spots
    beside it (its bevel, a neighbour's edge) make a group wider than a face; its spots as strong as the face's are
    grouped again, and the face is found, centred. Spots round it as strong as its pips (a row of letters) leave
    no face to find, nor does a group too small once the weak spots are gone."""
    pips = _face((100, 120), 6, g=7.0)
    weak = [(100.0 - 0.6 * DIE, 120.0), (100.0 + 0.6 * DIE, 115.0)]  # within LINK of the pips, 1.2 dice apart
    xy = np.array(pips + weak, np.float64)
    peak = np.array([110.0] * 6 + [0.9 * SIMILAR * 110.0] * 2)
    assert spot_clusters(xy, peak, DIE, []) == []  # (not without `regroup`)
    (((x, y), n),) = spot_clusters(xy, peak, DIE, [], regroup=True)
    assert n == 6 and np.hypot(x - 100, y - 120) < 1e-9
    alike = peak.copy()
    alike[6:] = 1.1 * SIMILAR * 110.0
    assert spot_clusters(xy, alike, DIE, [], regroup=True) == []
    two = np.array([pips[0], pips[3], *weak], np.float64)  # (one pip each side: linked to both weak spots)
    assert spot_clusters(two, np.array([110.0] * 2 + [40.0] * 2), DIE, [], regroup=True) == []


class FieldNet:
    """A stand-in net over a plane: a die's top face centred at `at` with `value`; "no die" grows with the
    distance from it (0 there, `edge` one die away, at most 0.95), and the rest is the value."""

    def __init__(self, at: tuple[float, float], value: int, edge: float = 1.0) -> None:
        self.at, self.value, self.edge = at, value, edge
        self.asked: list[tuple[float, float]] = []

    def read(self, frame: np.ndarray, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
        self.asked.extend(centres)
        out = []
        for x, y in centres:
            nd = min(0.95, self.edge * np.hypot(x - self.at[0], y - self.at[1]) / die)
            probs = [0.0] * N_CLASSES
            probs[NO_DIE], probs[self.value] = nd, 1.0 - nd
            out.append(NetRead.of(tuple(probs)))
        return tuple(out)


def test_recentre_moves_to_where_the_net_sees_a_die_centred() -> None:
    net = FieldNet((100.0, 100.0), 5)
    start = (100.0 + 0.25 * DIE, 100.0 - 0.2 * DIE)
    ((c, n),) = recentre(net, np.zeros((10, 10, 3), np.uint8), DIE, [start])
    assert np.hypot(c[0] - 100, c[1] - 100) <= 0.1 * DIE
    assert n.value == 5 and n.probs[NO_DIE] < 0.15
    # Two grids of nine around the best point so far.
    assert len(net.asked) == 9 * len(RECENTRE_STEPS)


def test_recentre_chooses_by_the_glance_and_keeps_the_nets_read_there() -> None:
    """The search's grids are asked of `glance` (the net's one view of each crop, dicenet.Glance); the read kept
    is the net's own, asked once, at the point the glance chose."""
    glance = FieldNet((100.0, 100.0), 5)
    net = FieldNet((100.0, 100.0), 6)
    start = (100.0 + 0.25 * DIE, 100.0 - 0.2 * DIE)
    ((c, n),) = recentre(net, np.zeros((10, 10, 3), np.uint8), DIE, [start], glance)
    assert np.hypot(c[0] - 100, c[1] - 100) <= 0.1 * DIE
    assert len(glance.asked) == 9 * len(RECENTRE_STEPS) and net.asked == [c]
    assert n.value == 6


def _green_two() -> np.ndarray:
    # A white 4 the pips read, and a green die with faint pips: to the pip readers a die-sized body with no
    # pip-like mark (test_dicenet.test_net_reads_a_die_the_pips_cannot).
    return render([DieSpec(4, (200, 200), angle=10), DieSpec(2, (430, 290), angle=35, body=(60, 140, 60),
                                                             pip=(70, 150, 70))], seed=9)


class TwoDice(FieldNet):
    """The white 4 read well at (200, 200); the green 2's top face centred at `at`."""

    def read(self, frame: np.ndarray, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
        out = list(super().read(frame, centres, die))
        for i, (x, y) in enumerate(centres):
            if np.hypot(x - 200, y - 200) < die:
                probs = [0.01] * N_CLASSES
                probs[4] = 1.0 - 0.01 * (N_CLASSES - 1)
                out[i] = NetRead.of(tuple(probs))
        return tuple(out)


def test_a_body_the_net_finds_off_centre_is_read_from_its_centre() -> None:
    """RECENTRE_FROM: the body's centre is 0.3 die from where the net sees the 2 best centred; there the net
    gives "no die" about 0.6, between RECENTRE_FROM and RECENTRE_TO, and the value under NET_ACCEPT_BODY.
    The search finds the die's centre and reads the 2 from there."""
    frame = _green_two()
    die = 36.0  # about the rendered dice's outline
    offset = (430.0 + 0.3 * die, 290.0)
    far = TwoDice(offset, 2, edge=2.0)
    r = read_dice(frame, net=far)
    assert r.verdict is Verdict.OK and sorted(r.values) == [2, 4]  # type: ignore[type-var]
    (two,) = [d for d in r.dice if d.value == 2]
    assert np.hypot(two.center[0] - offset[0], two.center[1] - offset[1]) < 0.15 * die


def test_a_candidate_the_net_sees_centred_or_not_at_all_is_not_searched_around() -> None:
    frame = _green_two()

    class Fixed(TwoDice):
        """At the green body: "no die" `nd`, the 2 the rest (under NET_ACCEPT_BODY when nd >= 0.2)."""

        def __init__(self, nd: float) -> None:
            super().__init__((430.0, 290.0), 2)
            self.nd = nd

        def read(self, frame: np.ndarray, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
            out = list(super().read(frame, centres, die))
            for i, (x, y) in enumerate(centres):
                if np.hypot(x - 430, y - 290) < die:
                    probs = [0.0] * N_CLASSES
                    probs[NO_DIE], probs[2], probs[COCKED] = self.nd, NET_ACCEPT_BODY - 0.05, 0.0
                    probs[3] = 1.0 - sum(probs)
                    out[i] = NetRead.of(tuple(probs))
            return tuple(out)

    for nd in (RECENTRE_FROM - 0.05, RECENTRE_TO + 0.01):
        net = Fixed(nd)
        r = read_dice(frame, net=net)
        assert r.verdict is Verdict.UNREADABLE and r.values == (4,)
        around = [c for c in net.asked if np.hypot(c[0] - 430, c[1] - 290) < 20]
        assert len(around) == 1, (nd, around)


def test_a_die_placed_by_the_search_where_another_die_is_read_is_dropped() -> None:
    """SAME_DIE: a candidate re-centred onto a die already read (a blob cut from it, say) is that die."""
    net = FieldNet((100.0, 100.0), 6, edge=0.8)
    read = Die(6, (100.0, 100.0), 0.9, size=30.0)
    part = Die(None, (100.0 + 0.3 * DIE, 100.0), 0.0, size=20.0)
    dice, problems = [read, part], ["", "single pip off the face centre"]
    consult_net(net, np.zeros((10, 10, 3), np.uint8), DIE, dice, problems, [6, 1], [])
    assert dice == [read] and problems == [""]
    # Apart by more than SAME_DIE, both stay (two dice side by side).
    net2 = FieldNet((100.0 + 1.2 * SAME_DIE * DIE, 100.0), 6, edge=0.8)
    other = Die(None, (100.0 + 1.2 * SAME_DIE * DIE + 0.3 * DIE, 100.0), 0.0, size=20.0)
    dice, problems = [read, other], ["", "single pip off the face centre"]

    class Both(FieldNet):
        def read(self, frame: np.ndarray, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
            a, b = net.read(frame, centres, die), net2.read(frame, centres, die)
            return tuple(x if x.probs[NO_DIE] <= y.probs[NO_DIE] else y for x, y in zip(a, b, strict=True))

    consult_net(Both((0.0, 0.0), 6), np.zeros((10, 10, 3), np.uint8), DIE, dice, problems, [6, 1], [])
    assert len(dice) == 2 and dice[1].value == 6 and dice[1].confidence >= NET_ACCEPT


def test_two_specks_on_a_plain_sheet_are_no_die_three_pips_are() -> None:
    """BARE_SPOTS: a group of two dark spots with no die-sized body around it (specks on the sheet, which the
    shipped net read as a 1 at 0.94 in a Byler photo taken at 1.5x) is not asked about; three spots in a
    face's width are pips, body or not (a cream die on a pale sheet)."""
    base = render([DieSpec(4, (200, 200), angle=10)], seed=13)
    sure_one = {(200.0, 200.0): (4, 0.95), (430.0, 290.0): (1, 0.95)}
    specks = [(424, 284), (436, 296), (436, 284)]
    r = {}
    for n in (2, 3):
        frame = base.copy()
        for x, y in specks[:n]:
            cv2.circle(frame, (x, y), 3, (35, 35, 35), -1)
        r[n] = read_dice(frame, net=FixedNet(sure_one))
    assert r[2].verdict is Verdict.UNREADABLE and r[2].values == (4,)
    assert r[3].verdict is Verdict.OK and sorted(r[3].values) == [1, 4]  # type: ignore[type-var]


def _cands(pts: list[tuple[float, float]], elong: float) -> Candidates:
    xy, peak = _spots(pts)
    n = len(pts)
    return Candidates(xy, peak, np.full(n, 3.0), np.full(n, elong), np.zeros(n, np.int64), True)


def test_a_six_whose_rows_blur_into_long_spots_is_a_group_with_them() -> None:
    """A soft lens merges a 6's rows: only the rows' first pips stay round, the rest measure long (the Byler
    photos under a 1 px blur, IMG_20191208_111751's white 6). Two round spots on a plain sheet are no group
    (BARE_SPOTS); grouped with the long spots they are the face, centred on it."""
    blank = np.full((200, 200, 3), 200, np.uint8)
    pips = _face((100.0, 100.0), 6)
    round_ = [p for p in pips if p[1] == 90.0]  # (one end of each line of three)
    long = [p for p in pips if p not in round_]
    alone = LightPass((), _cands(round_, 1.2))
    assert _spot_groups(blank, alone, DIE, []) == []
    blurred = LightPass((), _cands(round_, 1.2), _cands(long, 2.3))
    groups = _spot_groups(blank, blurred, DIE, [])
    assert len(groups) == 1 and np.hypot(groups[0][0] - 100.0, groups[0][1] - 100.0) < 1.0


def test_long_spots_do_not_move_a_group_of_round_ones() -> None:
    """A group of round spots stands as found; a group of round and long spots is added only away from every
    such group: a neighbour's long spot joined to a face would move its centre off the die."""
    blank = np.full((200, 200, 3), 200, np.uint8)
    three = _face((100.0, 100.0), 3)
    stray = [(100.0 + 0.5 * DIE, 100.0)]  # within LINK of the face's right pips, still within MAX_EXTENT
    both = LightPass((), _cands(three, 1.2), _cands(stray, 2.3))
    groups = _spot_groups(blank, both, DIE, [])
    assert len(groups) == 1 and np.hypot(groups[0][0] - 100.0, groups[0][1] - 100.0) < 1.0
    assert _spot_groups(blank, both, DIE, [(100.0, 100.0)]) == []  # (and neither where a die is read)
