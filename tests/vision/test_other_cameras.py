"""The reader on the Byler photos as other cameras would take them (tests/vision/camera_looks.py).

Every other photo (125 photos, 909 dice), held out as in test_reader_photos.py. The floors are what the
reader measured (2026-11-25) less a margin; before vision/scene.py a warm light left 72.7% of the white dice
read (the pip-first reader took them for coloured dice) and noise of 6 grey levels made 68 specks on the
photos' grey sheets into 1s (all photos: 73 values read where no die is).
"""

from __future__ import annotations

import pytest

from tests.vision import byler_data as byler
from tests.vision import camera_looks
from vision.reader import MIN_CONFIDENCE, read_dice

pytestmark = [pytest.mark.photos, pytest.mark.slow, pytest.mark.skipif(not byler.available(),
                                                                        reason=byler.SKIP_REASON)]

_scores: dict[str, byler.Score] = {}


def score(look: str) -> byler.Score:
    if look not in _scores:
        s = byler.Score()
        read = byler.held_out(read_dice)
        for p in camera_looks.photos(look, every=2):
            byler.score_photo(p, read(p), MIN_CONFIDENCE, s)
        print("\n" + byler.report(s, f"Byler photos, every other one, {look}"))
        _scores[look] = s
    return _scores[look]


# look: (white coverage, overall coverage), each measured less a margin; measured white / overall:
FLOORS = {
    "warm light": (0.93, 0.87),  # 95.79% (91 of 95) / 88.56%
    "cool light": (0.93, 0.86),  # 95.79% / 87.24%
    # Exposure (added 2026-11-28, with the long spots' groups in vision/reader.py _spot_groups).
    "darker (gamma 1.6)": (0.96, 0.85),  # 98.95% (94 of 95) / 87.83%, 2 ok wrong
    "brighter (gamma 0.6)": (0.95, 0.86),  # 97.89% (93 of 95) / 88.93%, 1 ok wrong
    "noise 6 levels": (0.95, 0.88),  # 97.89% / 89.77%
    "JPEG quality 40": (0.93, 0.81),  # 95.79% / 82.62%
    # A soft lens (2026-11-28): a 6's rows merge into long spots, grouped with the round ones for the net
    # (vision/reader.py _spot_groups); before that 93.68% (89 of 95) / 86.07%.
    "soft focus (blur 1 px)": (0.94, 0.84),  # 95.79% (91 of 95) / 86.29%
    # Read enlarged to the working die size (vision/scale.py), 2026-11-26; as taken 94.74% / 88.56%. With the
    # long spots' groups (2026-11-28); before them 96.84% (92 of 95) / 89.14%.
    "0.7x (dice 22-31 px)": (0.96, 0.87),  # 98.95% (94 of 95) / 89.47%
    # Read shrunk to the working die size (vision/scale.py). As they were, read at full size: 3x 93.68% /
    # 88.23% at 0.8 s a photo; 5x (every 25th photo: 10 photos, 69 dice) 84.06% of the dice at 5.3 s a
    # photo, against 94.20% at 0.14 s shrunk.
    "3x": (0.94, 0.87),  # 96.84% (92 of 95) / 89.77%
    "5x (a phone's photo)": (0.91, 0.88),  # 93.68% (89 of 95) / 90.65%
    # A phone pitched 35 degrees towards the table (camera_looks.TILTS), the view undone (vision/view.py,
    # 2026-11-27); read as taken 62.11% (59 of 95) / 71.43%. At 45 degrees see tests/vision/test_view.py.
    "seen at 35 degrees": (0.66, 0.73),  # 68.42% (65 of 95) / 75.30%
    # The camera mounted another way round (camera_looks.TURNS, 2026-11-27): as taken 98.95% / 91.01% on these
    # photos (with the five unlabelled dice), none `ok` and wrong. Measured with the net's two views
    # (vision/dicenet.py VIEWS); with one view 100.00% / 90.68%, 97.89% / 90.24%, 96.84% / 90.90%, 2 / 2 / 1.
    "turned a quarter": (0.97, 0.88),  # 100.00% (95 of 95) / 89.69%, 1 ok wrong
    "turned a half": (0.95, 0.88),  # 98.95% / 90.24%, 1 ok wrong
    "mirrored": (0.95, 0.89),  # 98.95% / 91.12%, 1 ok wrong
    # Uneven light (camera_looks.shading, 2026-12-02): the white dice in the darkened corners are still read as
    # white (vision/scene.py judges a face's colour against the light's, which a dimmer light does not change).
    # The one `ok` and wrong in each is the dark 5 of IMG_20191208_112458 read 4 (its faint centre pip,
    # docs/vision.md), refused as taken for another die.
    "vignetting (corners 0.55)": (0.97, 0.88),  # 100.00% (95 of 95) / 90.46%, 1 ok wrong
    "light from one side (0.5)": (0.96, 0.88),  # 98.95% (94 of 95) / 90.35%, 1 ok wrong, 1 value where no die is
}


@pytest.mark.parametrize("look", list(FLOORS))
def test_reads_the_photos_as_another_camera_takes_them(look: str) -> None:
    s = score(look)
    white, overall = FLOORS[look]
    assert s.by_colour["white"].coverage >= white, s.by_colour["white"].coverage
    assert s.overall.coverage >= overall, s.overall.coverage
    # Measured 99.47% (JPEG at quality 40: 4 of 751 wrong, all dark dice) to 99.75%; white dice 100% in all.
    assert s.overall.accuracy >= 0.99, s.overall.accuracy
    assert s.by_colour["white"].accuracy == 1.0
    # Values read where no die is labelled: measured 2-5 (at most 1 a photo on the original photos' count).
    assert s.false_dice <= 8
    assert s.images_ok_wrong <= 2  # measured 0-1, turned 1-2, darker 2


@pytest.mark.parametrize("look, least", [("moving (smear 5 px)", 0.50), ("moving (smear 9 px)", None)])
def test_photos_smeared_by_motion_are_refused_not_misread(look: str, least: float | None) -> None:
    """M.DICE.2: a face that cannot be read refuses the throw. The photos smeared along 30 degrees by a seventh
    and by a quarter of a die (camera_looks.smear): measured 2026-12-02, every other photo, held out, read with
    the labelled count: 5 px, 502 of 502 accepted values right, coverage 55.04%, 22 photos `ok` and right; 9 px,
    62 of 62, 6.80%, none `ok`; no photo `ok` and wrong, no value where no die is, either. Most refusals name
    the blur ("die 1 unreadable: motion blur", 49 of 103 at 5 px) or the dice it hid ("found 2 dice, expected
    6")."""
    s = score(look)
    assert s.images_ok_wrong == 0
    assert s.false_dice == 0
    assert s.overall.accuracy >= 0.99, s.overall.accuracy
    if least is not None:  # a slight smear still reads half the dice; a quarter of a die's, almost none
        assert s.overall.coverage >= least, s.overall.coverage


def test_small_dice_read_enlarged_read_more_than_as_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 0.7x photos (dice of 22-31 px, below the development photos' smallest) read enlarged to the working
    die size (vision/scale.py) against the same photos read as taken: more dice read, white ones included,
    accuracy held at the other looks' floor. Measured on these photos (2026-11-26): 89.44% against 88.56% of the dice,
    white 92 against 90 of 95, accuracy 99.75% against 99.88% (811 of 813 right against 804 of 805: one
    more dark die misread, a 6 read as 4)."""
    import vision.scale

    look = "0.7x (dice 22-31 px)"
    enlarged = score(look)
    monkeypatch.setattr(vision.scale, "ENLARGE_BELOW", 0.0)
    taken = byler.Score()
    read = byler.held_out(read_dice)
    for p in camera_looks.photos(look, every=2):
        byler.score_photo(p, read(p), MIN_CONFIDENCE, taken)
    assert enlarged.overall.accepted >= taken.overall.accepted + 5, (enlarged.overall.accepted, taken.overall.accepted)
    assert enlarged.by_colour["white"].accepted > taken.by_colour["white"].accepted
    assert enlarged.overall.accuracy >= 0.99
