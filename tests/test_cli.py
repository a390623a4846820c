"""The `tableside` command as a user runs it: subprocesses, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def tableside(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tableside", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_help_lists_the_commands() -> None:
    proc = tableside("--help")
    assert proc.returncode == 0
    for name in ("run", "scenario", "simulate"):
        assert name in proc.stdout


def test_scenario_prints_final_state(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"players": ["A", "B"], "seed": 1, "steps": [
        {"type": "roll", "dice": [1, 2]}, {"type": "buy"}, {"expect": {"deeds.baltic_avenue.owner": "A"}}]}))
    proc = tableside("scenario", str(f))
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout)
    assert state["players"][0]["cash"] == 1440


def test_scenario_unexpected_refusal_names_step_and_rule(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"players": ["A", "B"], "steps": [{"type": "end_turn"}]}))
    proc = tableside("scenario", str(f))
    assert proc.returncode != 0
    assert proc.stderr.strip() == ("tableside scenario: step 1 (end_turn): refused: "
                                   "M.DICE.1: A has not thrown the dice yet")


def test_scenario_expect_error_that_is_accepted_fails(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"players": ["A", "B"], "steps": [
        {"expect_error": "M.BUY.1", "command": {"type": "roll", "dice": [1, 2]}}]}))
    proc = tableside("scenario", str(f))
    assert proc.returncode != 0
    assert "accepted, expected refusal citing M.BUY.1" in proc.stderr


def test_bad_input_files_give_one_line_errors(tmp_path: Path) -> None:
    missing = tableside("scenario", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "nope.json" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = tableside("scenario", str(bad))
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_simulate_small_run_json() -> None:
    proc = tableside("simulate", "--games", "3", "--turns", "60", "--json", "--jail", "stay")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["stay"]
    assert report["rolls"] > 100 and len(report["squares"]) == 41
    assert abs(sum(r["simulated"] for r in report["squares"]) - 100) < 0.01


def test_simulate_rejects_nonsense() -> None:
    proc = tableside("simulate", "--games", "0")
    assert proc.returncode == 2 and "at least 1" in proc.stderr
