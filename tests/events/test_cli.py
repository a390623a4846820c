"""`tableside event ...` end to end: subprocesses on an SQLite store in tmp."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from hardware import store
from hardware.service import TableService
from tableside.commands.event import load_event


def run(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tableside", "event", *args, "--db", db],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tableside.db'}"


def finished_game(url: str, table_id: str, players: tuple[str, ...]) -> None:
    """A real engine game at a table unit, played to its end: cash set by the referee (M.PROC.2), the end
    signal (M.END.2), the final roll; the engine ranks by assets (M.END.3/M.END.4)."""
    engine_ = store.open_store(url)
    try:
        svc = TableService(engine_, table_id=table_id, players=players, seed=1)
        cash = dict(zip(players, (2200, 1700, 800, 300), strict=False))
        svc.submit({"type": "referee_set", "changes": {f"players.{p}.cash": c for p, c in cash.items()}})
        svc.submit({"type": "end_signal"})
        svc.submit({"type": "roll", "dice": [4, 6]})  # to Just Visiting: nothing to decide; the final turn
        assert svc.state().turn.phase == "game_over"
    finally:
        engine_.dispose()


def test_monopoly_event_end_to_end(db: str) -> None:
    out = run(db, "create", "Spring Open", "--game", "monopoly", "--players", "A,B,C,D,E,F,G", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("spring-open\t")

    out = run(db, "seat", "spring-open")
    assert out.returncode == 0, out.stderr
    assert "round 1 (2 tables)" in out.stdout  # 7 players: 4 + 3 (C.TABLE.1)
    engine_ = store.open_store(db)
    event = load_event(engine_, "spring-open").event
    t1, t2 = event.rounds[0].tables
    assert (len(t1.players), len(t2.players)) == (4, 3)

    # seating round 2 before round 1 is complete: refused
    out = run(db, "seat", "spring-open")
    assert out.returncode == 2 and "without a result: 1, 2" in out.stderr

    # table 1: the finished game of table unit "u1" in the same store
    finished_game(db, "u1", t1.players)
    out = run(db, "result", "spring-open", "--round", "1", "--table", "1", "--from-table", "u1")
    assert out.returncode == 0, out.stderr
    # table 2 by hand; an inconsistent ranking is refused with the rule
    a, b, c = t2.players
    bad = run(db, "result", "Spring Open", "--round", "1", "--table", "2", "--ranking", f"{a},{b},{c}",
              "--assets", f"{a}=100,{b}=900,{c}=0")
    assert bad.returncode == 2 and "M.END.4" in bad.stderr and bad.stderr.count("\n") == 1
    out = run(db, "result", "Spring Open", "--round", "1", "--table", "2", "--ranking", f"{a},{b},{c}",
              "--assets", "2500,900,0", "--winner", a)
    assert out.returncode == 0, out.stderr

    out = run(db, "seat", "spring-open")
    assert out.returncode == 0 and "round 2" in out.stdout
    engine_2 = store.open_store(db)
    ev2 = load_event(engine_2, "spring-open").event
    met_twice = [t for t in ev2.rounds[1].tables if sum(p in t1.players for p in t.players) > 2]
    assert not met_twice  # new opponents first: no table of round 2 holds three of round 1's table 1

    out = run(db, "standings", "spring-open", "--csv")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    top = {r["player"]: r for r in rows}
    assert top[t1.players[0]]["points"] == "3" and top[a]["points"] == "3" and top[a]["wins"] == "1"
    assert top[t1.players[0]]["score"] == "2200"
    assert top[t1.players[3]]["points"] == "0" and top[c]["points"] == "0" and top[b]["points"] == "1"

    out = run(db, "results", "spring-open", "--csv")
    results = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(results) == 7
    first = [r for r in results if r["table"] == "1"]
    assert [r["player"] for r in sorted(first, key=lambda r: r["place"])] == list(t1.players)
    assert {r["score"] for r in first} == {"2200", "1700", "800", "300"}

    # the store keeps every version, append-only in the database itself
    with engine_.begin() as conn:
        versions = conn.execute(sa.text("SELECT version FROM tournament_versions ORDER BY version")).scalars().all()
        assert versions == [1, 2, 3, 4, 5]
    with pytest.raises(sa.exc.DatabaseError), engine_.begin() as conn:
        conn.execute(sa.text("UPDATE tournament_versions SET name = 'x'"))
    engine_.dispose()
    engine_2.dispose()


def test_catan_scores_caps_and_refusals(db: str) -> None:
    assert run(db, "create", "Catan Cup", "--game", "catan", "--players", "A,B,C,D,E,F").returncode == 0
    out = run(db, "seat", "catan-cup")
    assert out.returncode == 0 and "round 1 (2 tables)" in out.stdout  # 6: 3 + 3
    engine_ = store.open_store(db)
    t1, t2 = load_event(engine_, "catan-cup").event.rounds[0].tables
    engine_.dispose()
    x, y, z = t1.players
    # a declared winner needs 10 (C.WIN.1)
    bad = run(db, "result", "catan-cup", "--round", "1", "--table", "1", "--points", f"{x}=9,{y}=8,{z}=7",
              "--winner", x)
    assert bad.returncode == 2 and "C.WIN.1" in bad.stderr
    # won with 12: recorded as 10; the others at most 9 (C.SCORE.1)
    out = run(db, "result", "catan-cup", "--round", "1", "--table", "1", "--points", f"{x}=12,{y}=10,{z}=7",
              "--winner", x)
    assert out.returncode == 0, out.stderr
    # by time: no winner, everyone at most 9; two level on 9 share first place
    p, q, r = t2.players
    out = run(db, "result", "catan-cup", "--round", "1", "--table", "2", "--points", f"{p}=11,{q}=9,{r}=4")
    assert out.returncode == 0 and "no winner" in out.stdout
    rows = {row["player"]: row for row in csv.DictReader(io.StringIO(run(db, "results", "catan-cup", "--csv").stdout))}
    assert (rows[x]["score"], rows[x]["raw"], rows[x]["win"]) == ("10", "12", "1")
    assert (rows[y]["score"], rows[y]["place"]) == ("9", "2")
    assert (rows[p]["score"], rows[p]["place"], rows[q]["place"], rows[p]["ended_by"]) == ("9", "1", "1", "time")
    assert rows[p]["points"] == rows[q]["points"] == "3"
    text = run(db, "standings", "catan-cup").stdout
    assert text.splitlines()[2].split()[1] == x  # 3 points and the only win


def test_bad_input_is_one_line_exit_2(db: str) -> None:
    out = run(db, "create", "Five", "--game", "catan", "--players", "A,B,C,D,E")
    assert out.returncode == 0
    out = run(db, "seat", "five")
    assert out.returncode == 2 and "C.TABLE.1" in out.stderr and out.stderr.count("\n") == 1
    out = run(db, "create", "Dup", "--game", "monopoly", "--players", "A,A,B")
    assert out.returncode == 2 and "already entered" in out.stderr
    out = run(db, "seat", "nope")
    assert out.returncode == 2 and "no event 'nope'" in out.stderr
    out = run(db, "result", "five", "--round", "1", "--table", "1", "--points", "A=x")
    assert out.returncode == 2 and "not a whole number" in out.stderr
    assert run(db, "create", "Five", "--game", "catan", "--players", "A,B,C").stdout.startswith("five-2\t")


def test_a_mistyped_data_dir_is_refused_not_made_into_an_empty_store(tmp_path: Path) -> None:
    """Only `event create` makes a store; reading or changing events where none is stored names the missing store
    (one line, exit 2) and leaves nothing behind."""
    nowhere = tmp_path / "typo"

    def event(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tableside", "event", *args, "--data-dir", str(nowhere)],
                              capture_output=True, text=True, timeout=60)

    for args in (("list",), ("show", "cup"), ("seat", "cup"), ("standings", "cup")):
        out = event(*args)
        assert out.returncode == 2 and out.stderr.strip() == (
            f"tableside event: no store at {nowhere / 'tableside.db'} (give --db or --data-dir)"), (args, out.stderr)
        assert not nowhere.exists()
    out = event("create", "Cup", "--game", "monopoly", "--players", "A,B,C")
    assert out.returncode == 0 and (nowhere / "tableside.db").is_file()
    assert event("list").stdout.startswith("cup\tCup\tmonopoly")
