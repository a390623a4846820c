"""Every scenario file under tests/scenarios/, run through the real CLI (`tableside scenario FILE`).

A scenario passes when the CLI exits 0 and prints the final state as JSON. Files carry a top-level
"rules" list naming the rule IDs they prove; a file may set "expect_failure": "<text>" to prove that
the runner itself refuses a wrong expectation (exit non-zero with that text in its one-line error).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))


def _run(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tableside", "scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 40


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    spec = json.loads(path.read_text(encoding="utf-8"))
    assert spec.get("rules"), f"{path.name} must cite the rule IDs it proves"
    proc = _run(path)
    if "expect_failure" in spec:
        assert proc.returncode != 0, f"{path.name} should have failed"
        assert spec["expect_failure"] in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        return
    assert proc.returncode == 0, f"{path.name}: {proc.stderr.strip()}"
    state = json.loads(proc.stdout)
    assert {"players", "deeds", "bank", "turn", "pending", "ranking"} <= set(state)
