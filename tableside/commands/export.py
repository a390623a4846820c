"""`tableside export [GAME] --format json|csv`: a game's record, replayable (`tableside import` reads it
back; folding its events rebuilds the game). Without GAME: the games in the store."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

CSV_COLUMNS = ("seq", "type", "source", "time", "payload")


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write a game's event log as JSON or CSV (no GAME: list the games)")
    p.add_argument("game", nargs="?", type=int, help="game id (see the list without it)")
    p.add_argument("--format", choices=("json", "csv"), default="json")
    p.add_argument("--db", default=None, help="database URL (default: SQLite in the data directory)")
    p.add_argument("--data-dir", default=None, help="data directory of the default SQLite store")
    p.add_argument("-o", "--output", default=None, help="file to write (default: standard output)")
    p.set_defaults(func=handle)


def to_csv(record: dict[str, Any]) -> str:
    """One event a row; the payload column is the event's JSON (the first event carries the players,
    options and shuffled decks, so the CSV alone replays the game)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for e in record["events"]:
        w.writerow([e["seq"], e["type"], e["source"], e["time"],
                    json.dumps(e["payload"], ensure_ascii=False, sort_keys=True, separators=(",", ":"))])
    return out.getvalue()


def handle(args: argparse.Namespace) -> int:
    from hardware import store
    from tableside.cli import UsageError, store_url

    db = store.open_store(store_url(args.db, args.data_dir, create=False))
    try:
        with store.session_scope(db) as s:
            if args.game is None:
                games = store.list_games(s)
                if not games:
                    # (To stderr: stdout stays the list, empty, for scripts reading it.)
                    print(f"no games in {db.url.render_as_string(hide_password=True)}", file=sys.stderr)
                for g in games:
                    assert g.id is not None
                    n = store.last_seq(s, game_id=g.id)
                    names = ", ".join(store.game_players(s, game_id=g.id))
                    print(f"{g.id}\t{g.table_id}\t{g.created_at:%Y-%m-%d %H:%M}\t{n} events\t{names}")
                return 0
            try:
                record = store.game_record(s, game_id=args.game)
            except KeyError:
                raise UsageError(f"no game {args.game} in the store") from None
    finally:
        db.dispose()
    text = json.dumps(record, ensure_ascii=False, indent=1) + "\n" if args.format == "json" else to_csv(record)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
