"""`tableside import FILE`: a game record written by `tableside export` (JSON or CSV) becomes a new game in
the store. It is checked first: events numbered 1..N without gaps, every event known to the engine, and
the whole log folds; a record that does not replay is refused and nothing is written."""

from __future__ import annotations

import argparse
import csv
import io
import json
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("import", help="store a game record written by `tableside export` as a new game")
    p.add_argument("file", help="the record (.json or .csv)")
    p.add_argument("--table", default="imported", help="table id the game is filed under (default: imported)")
    p.add_argument("--db", default=None, help="database URL (default: SQLite in the data directory)")
    p.add_argument("--data-dir", default=None, help="data directory of the default SQLite store")
    p.set_defaults(func=handle)


def read_record(path: Path) -> list[dict[str, Any]]:
    """The events of a record file: [{seq, type, source, time, payload}]."""
    from tableside.cli import UsageError

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path} is not valid JSON: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != "tableside-game":
            raise UsageError(f"{path} is not a tableside game record (format tag missing)")
        if data.get("version") != 1:
            raise UsageError(f"{path}: record version {data.get('version')!r} is not supported")
        events = data.get("events")
        if not isinstance(events, list):
            raise UsageError(f"{path}: no event list")
        return events
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or set(rows[0]) != {"seq", "type", "source", "time", "payload"}:
        raise UsageError(f"{path} is neither a JSON record nor an events CSV (seq,type,source,time,payload)")
    out = []
    for i, r in enumerate(rows, start=2):
        try:
            out.append({"seq": int(r["seq"]), "type": r["type"], "source": r["source"], "time": r["time"],
                        "payload": json.loads(r["payload"])})
        except (ValueError, TypeError) as exc:
            raise UsageError(f"{path} line {i}: {exc}") from exc
    return out


def check_events(events: list[dict[str, Any]]) -> Any:
    """Refuse a record that does not replay; the folded final state when it does."""
    import engine
    from hardware.store import SOURCES
    from tableside.cli import UsageError

    if not events:
        raise UsageError("the record has no events")
    parsed = []
    for expected, e in enumerate(events, start=1):
        if not isinstance(e, dict) or not isinstance(e.get("payload"), dict):
            raise UsageError(f"event {expected}: not an object with a payload")
        if e.get("seq") != expected:
            raise UsageError(f"event {expected}: numbered {e.get('seq')!r}; a record is numbered 1..N without gaps")
        if e["payload"].get("type") != e.get("type"):
            raise UsageError(f"event {expected}: type {e.get('type')!r} differs from its payload's")
        if e.get("source") not in SOURCES:
            raise UsageError(f"event {expected}: unknown source {e.get('source')!r}")
        try:
            parsed.append(engine.event_from_json(e["payload"]))
        except (engine.TablesideError, TypeError, KeyError, ValueError) as exc:
            raise UsageError(f"event {expected}: {exc}") from exc
    if parsed[0].type != "game_started":
        raise UsageError("the record does not begin with game_started")
    try:
        return engine.fold(parsed)
    except Exception as exc:  # any failure to replay means the record is not a game we can keep
        raise UsageError(f"the record does not replay: {exc}") from exc


def _time(value: Any) -> datetime:
    try:
        t = datetime.fromisoformat(str(value))
    except ValueError:
        return datetime.now(UTC)
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def handle(args: argparse.Namespace) -> int:
    from hardware import store
    from tableside.cli import store_url

    path = Path(args.file)
    events = read_record(path)
    final = check_events(events)
    start = events[0]["payload"]
    # Unlike export, import may create the store: it is how a record reaches a fresh machine.
    db = store.open_store(store_url(args.db, args.data_dir, create=True))
    try:
        with store.session_scope(db) as s:
            store.ensure_table(s, table_id=args.table, name=args.table, clerk_pin=f"{secrets.randbelow(10**6):06d}")
            options = dict(start.get("options") or {})
            game = store.create_game(s, table_id=args.table, players=list(start["players"]),
                                     ruleset=str(options.get("ruleset", "jma-2006")), options=options,
                                     seed=start.get("seed"), imported_from=str(path)[:500])
            assert game.id is not None
            # One transaction for the whole record, keeping each event's source and time.
            for e in events:
                store.append_events(s, game_id=game.id, first_seq=e["seq"], events=[e["payload"]],
                                    source=e["source"], at=_time(e["time"]))
            game_id = game.id
    finally:
        db.dispose()
    print(f"imported game {game_id} (table {args.table}): {len(events)} events, "
          f"turn {final.turn.number}, phase {final.turn.phase}")
    return 0
