"""The reader on the real Byler photos (../shared/data/dice-byler: 250 photos, 1,800 dice, many colours).

Each photo is read with `expect=<labelled count>`; a labelled die counts as *accepted* when a read die
with a value and confidence >= MIN_CONFIDENCE has its centre inside the label's box (nearest first, one to
one). Accuracy is correct / accepted; values read where no die is labelled are counted apart and bound
too. Coverage is accepted / labelled. Colour classes come from the pixels, as described in byler_data.py.

Labels are scored with the corrections in byler_data.ERRATA (dice whose label disagrees with a top face that
is unambiguous by eye) and the five dice byler_data.UNLABELLED adds (1,795 labelled, 1,800 on the photos);
bench/vision.py also prints the figures against the labels as published.

Every photo is read with the dice-net fold model that never saw it (byler_data.held_out; vision/dicenet.py),
so these are held-out figures; the product reads with the model trained on all the photos.

The floors are what this reader measured (2026-11-25; bench/vision.py prints the same figures) minus a small
margin. Accuracy among accepted dice (99.82%), coverage (91.92%) and white coverage (98.48%, 195 of 198) are
over the issue's 99.5%, 90% and 98%; the white floor leaves one die of margin (194 of 198 is 97.98%). These
tests keep the reader from sliding back.
"""

from __future__ import annotations

import pytest

from tests.vision import byler_data as byler
from vision.dicenet import DiceNet, fold_of
from vision.reader import MIN_CONFIDENCE, read_dice

pytestmark = [pytest.mark.photos, pytest.mark.skipif(not byler.available(), reason=byler.SKIP_REASON)]


@pytest.fixture(scope="module")
def score() -> byler.Score:
    s = byler.evaluate(byler.held_out(read_dice), MIN_CONFIDENCE)
    print("\n" + byler.report(s, "reader on Byler photos"))
    return s


def test_all_photos_and_dice_scored(score: byler.Score) -> None:
    assert score.images == 250
    assert score.overall.labelled == 1800


def test_accuracy_among_accepted_dice(score: byler.Score) -> None:
    # measured 99.88% (1648/1650, 2026-11-27, the net's two views, vision/dicenet.py VIEWS; one view 99.82%,
    # 1650/1653, and one value read where no die is, a second read inside one die's box), none read where no
    # die is. Before the five unlabelled dice were added, 6 such values: five of them those dice, read right.
    # 2026-11-29, the re-centring search's glance and the blurred spots grouped again (docs/vision.md): 1650/1652;
    # packed pips measured to their valleys (vision/pips.py VALLEY_ELONG): 1655/1657.
    assert score.overall.accuracy >= 0.995
    assert score.accuracy_with_false >= 0.995
    assert score.false_dice <= 2


def test_coverage(score: byler.Score) -> None:
    # measured 91.67% overall (2026-11-27, two views; one view 91.83%, 91.81% without the five unlabelled
    # dice, 91.92% with the float nets); 91.78% since 2026-11-29 (two dark dice more); 92.06% with packed pips
    # measured to their valleys (five more); 92.39% with the colour reader's opponent planes (2026-12-01, six more)
    assert score.overall.coverage >= 0.915


def test_by_colour(score: byler.Score) -> None:
    # measured (2026-11-27, two views): white 98.48% coverage / 100.00% accuracy (195/195), dark 85.69% /
    # 99.66% (591/593), coloured 94.73% / 100.00% (862/862); one view: white 98.99% (196/196), dark 86.56% /
    # 99.67%, coloured 94.29% / 99.88%; since 2026-11-29 dark 85.98% / 99.66% (593/595); with packed pips measured
    # to their valleys white 98.99% (196/196), coloured 95.05% (865/865), dark 86.13% (594/596); with the colour
    # reader's opponent planes (2026-12-01) coloured 95.60% (870/870), dark 86.27% (595/597). The white floor is
    # the 98%.
    floors = {"white": (0.98, 0.985), "dark": (0.85, 0.985), "coloured": (0.95, 0.995)}
    for colour, (cov, acc) in floors.items():
        t = score.by_colour[colour]
        assert t.coverage >= cov, (colour, t.coverage)
        assert t.accuracy >= acc, (colour, t.accuracy)


def test_by_value(score: byler.Score) -> None:
    # measured coverage 1..6: 96.01 / 90.52 / 89.39 / 91.13 / 91.59 / 91.43 % (two views)
    floors = {1: 0.95, 2: 0.90, 3: 0.885, 4: 0.905, 5: 0.91, 6: 0.905}
    for value in range(1, 7):
        t = score.by_value[value]
        assert t.coverage >= floors[value], (value, t.coverage)
        assert t.accuracy >= 0.95, (value, t.accuracy)


def test_images_fully_correct_and_ok_verdicts_rarely_wrong(score: byler.Score) -> None:
    # measured (2026-11-27): 154 of 250 photos `ok` with every die right, none `ok` otherwise (the net's one
    # view or two). Before the five unlabelled dice were added, IMG_20191209_095533.jpg (14 dice, 13 labelled,
    # 13 read) counted as an `ok` gone wrong, where the reader had read every die but one: given the real count
    # it is `unreadable`. 156 with packed pips measured to their valleys, 159 with the colour reader's opponent
    # planes (2026-12-01).
    assert score.images_ok_correct >= 154
    assert score.images_ok_wrong == 0


@pytest.fixture(scope="module")
def score_any_count() -> byler.Score:
    """Every photo read as `tableside read --expect any` reads it: no count of dice expected."""
    return byler.evaluate(byler.held_out(read_dice, counted=False), MIN_CONFIDENCE)


def test_with_no_count_expected_a_die_seen_but_not_read_refuses_the_throw(score_any_count: byler.Score) -> None:
    """Without a count to check, a die the reader finds but cannot read must refuse the throw, not drop out of it
    (vision/netcheck.py NET_IS_DIE). Measured 2026-11-29: 152 photos `ok` and right and 3 `ok` and wrong (in
    each a die left out that the reader found no body of, or whose body the net doubted was a die); before
    NET_IS_DIE, 49 `ok` and wrong, a die passed over in each, and the same 152 right."""
    assert score_any_count.images_ok_correct >= 148
    assert score_any_count.images_ok_wrong <= 6
    # The dice read are those the reader reads with the count given (test_coverage, test_accuracy_...).
    assert score_any_count.overall.coverage >= 0.91
    assert score_any_count.overall.accuracy >= 0.995


# White dice the reader missed until it searched for a die's centre and grouped loose spots (docs/vision.md):
# a 1 whose body merged with a black die's, a 4 whose body was cut in two, a 6 refused as off its grid (each
# candidate a third of a die off centre, where the net was unsure), and a small cream 6 with neither a body
# nor a layout (its pips half merged at the uncalibrated pip scale), found as a group of spots.
ONCE_MISSED = (("IMG_20191209_100051.jpg", 1), ("IMG_20191209_100728.jpg", 4), ("IMG_20191209_100722.jpg", 6),
               ("IMG_20191208_111803.jpg", 6))


@pytest.fixture(scope="module")
def once_missed() -> dict[str, byler.Photo]:
    names = {name for name, _ in ONCE_MISSED}
    return {p.name: p for p in byler.photos() if p.name in names}


@pytest.mark.parametrize(("name", "value"), ONCE_MISSED)
def test_white_dice_off_centre_candidates_are_read(name: str, value: int, once_missed: dict[str, byler.Photo]) -> None:
    p = once_missed[name]
    r = read_dice(p.image, expect=len(p.dice), net=DiceNet.fold(fold_of(p.index, byler.count())))
    labelled = [d for d in p.dice if d.colour == "white" and d.value == value]
    assert labelled
    for lab in labelled:
        x0, y0, x1, y1 = lab.box
        inside = [d for d in r.dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
        assert [d.value for d in inside if d.confidence >= MIN_CONFIDENCE] == [value], (lab, inside)
