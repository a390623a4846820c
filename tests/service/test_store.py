"""The store against a real SQLite file and a real PostgreSQL server (started for the session by
tests/conftest.py; these cases skip where Debian's postgresql is absent)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

import engine
from hardware import store
from hardware.autoclerk import scripted_command
from hardware.service import TableService


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        url = store.sqlite_url(tmp_path / "store.db")
    else:
        url = request.getfixturevalue("postgres_server").create_database()
    eng = store.open_store(url)
    yield eng
    eng.dispose()


def _game(eng: Engine) -> int:
    with store.session_scope(eng) as s:
        store.ensure_table(s, table_id="t1", name="Table 1", clerk_pin="1234")
        game = store.create_game(s, table_id="t1", players=["A", "B"], ruleset="jma-2006", options={}, seed=1)
        assert game.id is not None
        opening = [e.to_json() for e in engine.new_game(["A", "B"], seed=1)]
        store.append_events(s, game_id=game.id, first_seq=1, events=opening, source="system")
        return game.id


def test_migration_builds_exactly_the_models_and_is_idempotent(db: Engine) -> None:
    with db.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one()
    assert diff == []
    assert version == "0003"  # 0003: tournament events (append-only versions)
    store.migrate(db)  # a restart migrates again: nothing to do, nothing breaks


def test_events_round_trip_and_fold(db: Engine) -> None:
    gid = _game(db)
    state = engine.fold([engine.event_from_json(e.to_json()) for e in engine.new_game(["A", "B"], seed=1)])
    events, _ = engine.game.run(state, {"type": "roll", "dice": [1, 2]})
    with store.session_scope(db) as s:
        store.append_events(s, game_id=gid, first_seq=store.last_seq(s, game_id=gid) + 1,
                            events=[e.to_json() for e in events], source="camera")
    with store.session_scope(db) as s:
        rows = store.load_events(s, game_id=gid)
        store.check_sequence(rows)
        assert [r.source for r in rows][-1] == "camera"
        folded = engine.fold([engine.event_from_json(r.payload) for r in rows])
    assert folded.player("A").position == 3
    assert folded.to_json() == engine.fold([*engine.new_game(["A", "B"], seed=1), *events]).to_json()


def _refused(db: Engine, sql: str, **params: Any) -> str:
    with pytest.raises(sa.exc.DBAPIError) as info, db.begin() as conn:
        conn.execute(sa.text(sql), params)
    return str(info.value.orig)


def test_the_database_refuses_edits_and_deletes_of_events_and_rolls(db: Engine) -> None:
    gid = _game(db)
    with store.session_scope(db) as s:
        store.add_roll(s, table_id="t1", game_id=gid, n=1, verdict="ok", reason="", dice=[{"value": 1}],
                       applied=True, outcome="", first_seq=2, image_path=None)
        before = [(r.seq, r.payload) for r in store.load_events(s, game_id=gid)]
    assert "append-only" in _refused(db, "UPDATE events SET type = 'x' WHERE game_id = :g", g=gid)
    assert "append-only" in _refused(db, "UPDATE events SET payload = '{}'")
    assert "append-only" in _refused(db, "DELETE FROM events WHERE seq = 1")
    assert "append-only" in _refused(db, "DELETE FROM events")
    assert "append-only" in _refused(db, "UPDATE rolls SET applied = :f", f=False)
    assert "append-only" in _refused(db, "DELETE FROM rolls")
    if db.dialect.name == "postgresql":
        assert "append-only" in _refused(db, "TRUNCATE events CASCADE")
    with store.session_scope(db) as s:
        assert [(r.seq, r.payload) for r in store.load_events(s, game_id=gid)] == before
        assert store.last_roll(s, table_id="t1") is not None


def test_a_seq_number_is_stored_once(db: Engine) -> None:
    gid = _game(db)
    with pytest.raises(sa.exc.IntegrityError), store.session_scope(db) as s:
        store.append_events(s, game_id=gid, first_seq=1, events=[{"type": "command", "command": {}}],
                            source="clerk")
    with store.session_scope(db) as s:
        assert store.last_seq(s, game_id=gid) == 1


def test_foreign_keys_are_enforced(db: Engine) -> None:
    with pytest.raises(sa.exc.IntegrityError), store.session_scope(db) as s:
        store.append_events(s, game_id=9999, first_seq=1, events=[{"type": "command", "command": {}}],
                            source="clerk")
    with pytest.raises(sa.exc.IntegrityError), store.session_scope(db) as s:
        store.create_game(s, table_id="no-such-table", players=["A", "B"], ruleset="jma-2006", options={},
                          seed=1)


def test_a_command_is_stored_all_or_nothing(db: Engine) -> None:
    gid = _game(db)
    with pytest.raises(sa.exc.IntegrityError), store.session_scope(db) as s:
        # The second event collides with seq 1: the first one, in the same transaction, must not stay.
        store.append_events(s, game_id=gid, first_seq=2, events=[{"type": "command", "command": {}}],
                            source="clerk")
        store.append_events(s, game_id=gid, first_seq=1, events=[{"type": "command", "command": {}}],
                            source="clerk")
    with store.session_scope(db) as s:
        assert store.last_seq(s, game_id=gid) == 1


def test_sqlite_connections_are_wal_full_sync_with_foreign_keys(tmp_path: Path) -> None:
    eng = store.open_store(store.sqlite_url(tmp_path / "p.db"))
    for _ in range(2):  # every pooled connection, not only the first
        with eng.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    eng.dispose()


def test_service_restart_folds_the_log_and_carries_on(db: Engine) -> None:
    svc = TableService(db, table_id="r1", players=["A", "B", "C"], seed=4)
    for _ in range(120):
        command = scripted_command(svc.state(), seed=4)
        assert command is not None
        svc.submit(command, source="clerk")
    seq, state = svc.seq, svc.state().to_json()
    svc.stop()
    again = TableService(db, table_id="r1", players=["X", "Y"], seed=99)  # a resumed game keeps its players
    assert again.seq == seq
    assert again.state().to_json() == state
    again.submit(scripted_command(again.state(), seed=4) or {}, source="clerk")
    assert again.seq > seq
    assert [e["seq"] for e in again.events()] == list(range(1, again.seq + 1))


def test_export_record_replays(db: Engine) -> None:
    gid = _game(db)
    with store.session_scope(db) as s:
        record = store.game_record(s, game_id=gid)
    assert record["game"]["players"] == ["A", "B"]
    assert engine.fold([engine.event_from_json(e["payload"]) for e in record["events"]]).seq == 1
