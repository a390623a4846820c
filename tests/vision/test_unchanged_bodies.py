"""M.DICE.1: given the table before the throw, the body pass reads only bodies that changed since then.

A whole read of the simulated board finds its lettering, houses and pieces as die-sized bodies, reads each and asks
the net about it, and then drops what did not change since before the throw (vision/throwchecks.py
`drop_unchanged`). With the table before given, such bodies are no longer read at all (reader `_read_frame`): the
same verdicts, less time.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.vision.simthrows import sim_throw_before
from vision import reader
from vision.change import new_share
from vision.reader import calibrated_die_size, read_dice
from vision.reading import Verdict
from vision.throwchecks import FACE_DISC, NEW_FACE


def _bodies_read(monkeypatch: pytest.MonkeyPatch, frame: Any, cal: Any, before: Any) -> list[float]:
    """Each body the body pass was given, as its share new since `before` (the frame's own table)."""
    shares: list[float] = []
    real = reader.candidate_faces
    die = calibrated_die_size(cal, (frame.shape[1], frame.shape[0]))
    assert die

    def spy(bgr: Any, bodies: Any, *args: Any, **kwargs: Any) -> Any:
        shares.extend(new_share(bgr, before, b.center, FACE_DISC * die) for b in bodies)
        return real(bgr, bodies, *args, **kwargs)

    monkeypatch.setattr(reader, "candidate_faces", spy)
    return shares


@pytest.mark.parametrize("seed", [1, 3])
def test_a_stacked_throw_read_whole_reads_no_unchanged_body(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    frame, before, cal, truth = sim_throw_before("stacked", seed)
    assert truth.verdict is Verdict.UNREADABLE
    without = _bodies_read(monkeypatch, frame, cal, before)
    plain = read_dice(frame, calibration=cal, expect=2)
    # Without the table before, the board's own features are read (and the test can tell them).
    assert any(s < NEW_FACE for s in without), without
    monkeypatch.undo()
    given = _bodies_read(monkeypatch, frame, cal, before)
    r = read_dice(frame, calibration=cal, expect=2, before=before)
    assert given and all(s >= NEW_FACE for s in given), given
    assert len(given) < len(without)
    assert r.verdict is plain.verdict is Verdict.UNREADABLE


@pytest.mark.parametrize("seed", [2, 5])
def test_a_plain_throw_read_whole_with_the_table_before_reads_the_same(seed: int) -> None:
    frame, before, cal, truth = sim_throw_before("ok", seed)
    r = read_dice(frame, calibration=cal, expect=2, before=before)
    assert r.verdict is Verdict.OK
    assert sorted(r.values, key=str) == sorted(truth.values, key=str)
