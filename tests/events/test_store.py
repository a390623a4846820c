"""Tournament versions in the store, on SQLite and PostgreSQL: latest version wins, list shows each event
once, the database refuses UPDATE and DELETE, a version number is stored once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hardware import store


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def pdb(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        url = store.sqlite_url(tmp_path / "t.sqlite")
    else:
        url = request.getfixturevalue("postgres_server").create_database()
    eng = store.open_store(url)
    yield eng
    eng.dispose()


def test_versions_append_only(pdb: Engine) -> None:
    with store.session_scope(pdb) as s:
        for v in (1, 2, 3):
            store.save_tournament(s, event_id="open", version=v, name="Open", command={"type": f"c{v}"},
                                  data={"v": v}, actor="cli")
        store.save_tournament(s, event_id="cup", version=1, name="Cup", command={}, data={"v": 1}, actor="cli")
    with store.session_scope(pdb) as s:
        latest = store.load_tournament(s, event_id="open")
        assert latest is not None and latest.version == 3 and latest.data == {"v": 3}
        first = store.load_tournament(s, event_id="open", version=1)
        assert first is not None and first.command == {"type": "c1"}
        assert [(r.event_id, r.version) for r in store.list_tournaments(s)] == [("open", 3), ("cup", 1)]
        assert [r.version for r in store.tournament_history(s, event_id="open")] == [1, 2, 3]
        assert store.load_tournament(s, event_id="none") is None
    for sql in ("UPDATE tournament_versions SET name = 'x'", "DELETE FROM tournament_versions"):
        with pytest.raises(sa.exc.DBAPIError), pdb.begin() as conn:
            conn.execute(sa.text(sql))
    with pytest.raises(sa.exc.IntegrityError), store.session_scope(pdb) as s:
        store.save_tournament(s, event_id="open", version=3, name="Open", command={}, data={}, actor="cli")
