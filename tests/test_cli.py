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
    assert missing.stderr.strip() == f"tableside scenario: cannot read scenario {tmp_path / 'nope.json'}: " \
        "No such file or directory"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = tableside("scenario", str(bad))
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_database_that_cannot_be_opened_is_one_line_naming_it(tmp_path: Path) -> None:
    """`--db` a server not reached, a backend Tableside does not keep games in, or no URL at all: exit 2 and
    one line naming the database with its password hidden (a traceback of 120 lines before, exit 1). The run
    command opens the store the same way."""
    import socket

    with socket.socket() as s:  # a free port: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for url, said in ((f"postgresql+psycopg://tab:secret@127.0.0.1:{port}/hall", "cannot open the database "
                       f"postgresql+psycopg://tab:***@127.0.0.1:{port}/hall: connection failed"),
                      ("mysql://tab:secret@localhost/hall", "Tableside keeps its games in SQLite or PostgreSQL, "
                       "not mysql"),
                      ("hall-server", "not a database URL: 'hall-server'")):
        proc = tableside("export", "--db", url)
        err = proc.stderr.strip()
        assert proc.returncode == 2 and len(err.splitlines()) == 1 and said in err, err
        assert "secret" not in err
    proc = tableside("export", "--db", f"sqlite:///{tmp_path / 'empty.db'}")
    assert proc.returncode == 0 and proc.stdout == "" and "no games in sqlite:///" in proc.stderr


def test_simulate_small_run_json() -> None:
    proc = tableside("simulate", "--games", "3", "--turns", "60", "--json", "--jail", "stay")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["stay"]
    assert report["rolls"] > 100 and len(report["squares"]) == 41
    assert abs(sum(r["simulated"] for r in report["squares"]) - 100) < 0.01


def test_simulate_rejects_nonsense() -> None:
    proc = tableside("simulate", "--games", "0")
    assert proc.returncode == 2 and "at least 1" in proc.stderr


def test_output_piped_into_a_reader_that_quits_is_not_an_error() -> None:
    """`tableside simulate | head`: the reader closing the pipe early ends the command quietly (exit 141, as a
    shell reports a SIGPIPE), not with "[Errno 32] Broken pipe" on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "tableside", "simulate", "--games", "1", "--turns", "10"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes anything
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141 and err == ""
