"""`tableside event ...`: tournament events for organisers (engine.tournament), kept in the store.

    tableside event create NAME --game monopoly|catan --players "A,B,C,..." [--minutes N] [--seed S]
    tableside event list
    tableside event show EVENT
    tableside event seat EVENT                      seat the next round and print its tables
    tableside event result EVENT --round R --table T --ranking "A,B,C,D" --assets "A=2100,B=1500,..." [--winner A]
    tableside event result EVENT --round R --table T --from-table TABLE_ID     (Monopoly: the table's game)
    tableside event result EVENT --round R --table T --points "A=10,B=8,C=9" [--winner A]   (Catan)
    tableside event standings EVENT [--csv]
    tableside event results EVENT [--csv]
    tableside event add-players EVENT --players "E,F" / drop-player EVENT NAME

EVENT is the event's id (printed by `create`, e.g. `spring-open`) or its exact name. Every change is a new
append-only version of the event in the store (hardware.store.TournamentVersion); reading an event re-checks
every result (tournament_from_json). The helpers here (create_tournament, change_tournament, result_from_body,
...) are shared with the web app (web/events.py).
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from sqlmodel import Session

    from engine.tournament import CatanResult, MonopolyResult, Tournament
    from hardware.store import TournamentVersion


class EventNotFound(ValueError):
    """No event with that id or name (the web answers 404)."""


class EventNameAmbiguous(EventNotFound):
    """More than one event has that name: the id is needed."""


class EventConflict(ValueError):
    """The event changed meanwhile, or the action does not fit its state now (the web answers 409)."""


@dataclass(frozen=True)
class Stored:
    event_id: str
    version: int
    event: Tournament


# ---- shared with the web app ----


def slug(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]
    text = text or "event"
    return f"{text}-event" if text in ("login", "logout") else text  # the web app's /events/login


def _stored(row: TournamentVersion) -> Stored:
    from engine.tournament import tournament_from_json

    return Stored(event_id=row.event_id, version=row.version, event=tournament_from_json(row.data))


def find_row(s: Session, ref: str) -> TournamentVersion:
    from hardware import store

    row = store.load_tournament(s, event_id=ref)
    if row is None:
        matches = [r for r in store.list_tournaments(s) if r.name == ref]
        if len(matches) > 1:
            raise EventNameAmbiguous(f"{len(matches)} events are named {ref!r}: give the id "
                                f"({', '.join(r.event_id for r in matches)})")
        row = matches[0] if matches else None
    if row is None:
        raise EventNotFound(f"no event {ref!r} (see `tableside event list`)")
    return row


def load_event(db: Engine, ref: str) -> Stored:
    from hardware import store

    with store.session_scope(db) as s:
        return _stored(find_row(s, ref))


def all_events(db: Engine) -> list[Stored]:
    from hardware import store

    with store.session_scope(db) as s:
        return [_stored(r) for r in store.list_tournaments(s)]


def create_tournament(db: Engine, *, name: str, game: str, players: list[str], minutes: float | None = None,
                      seed: int = 0, asset_lead_wins: bool = False, actor: str = "cli") -> Stored:
    from engine.errors import InvalidCommand
    from engine.tournament import create_event, tournament_to_json
    from hardware import store

    name = name.strip()
    if not name:
        raise InvalidCommand("the event needs a name")
    if len(name) > 200:
        raise InvalidCommand("the event's name is too long (200 characters at most)")
    event = create_event(name, game, players, minutes=minutes, seed=seed, asset_lead_wins=asset_lead_wins)
    with store.session_scope(db) as s:
        base, n = slug(name), 1
        event_id = base
        while store.load_tournament(s, event_id=event_id) is not None:
            n += 1
            event_id = f"{base}-{n}"
        command = {"type": "create", "name": name, "game": event.game, "players": list(event.players),
                   "minutes": event.minutes, "seed": seed, "asset_lead_wins": asset_lead_wins}
        store.save_tournament(s, event_id=event_id, version=1, name=name, command=command,
                              data=tournament_to_json(event), actor=actor)
    return Stored(event_id=event_id, version=1, event=event)


def change_tournament(db: Engine, ref: str, command: Mapping[str, Any], fn: Callable[[Tournament], Tournament],
                      *, actor: str = "cli", expected_version: int | None = None) -> Stored:
    """Apply `fn` to the event's latest version and store the result as the next version."""
    import sqlalchemy as sa

    from engine.tournament import tournament_to_json
    from hardware import store

    try:
        with store.session_scope(db) as s:
            current = _stored(find_row(s, ref))
            if expected_version is not None and expected_version != current.version:
                raise EventConflict(f"the event changed meanwhile (version {current.version}, not "
                                    f"{expected_version}): reload and try again")
            event = fn(current.event)
            store.save_tournament(s, event_id=current.event_id, version=current.version + 1, name=event.name,
                                  command=dict(command), data=tournament_to_json(event), actor=actor)
    except sa.exc.IntegrityError:
        raise EventConflict("the event changed meanwhile: try again") from None
    return Stored(event_id=current.event_id, version=current.version + 1, event=event)


def seat_next(event: Tournament) -> Tournament:
    """Seat the next round once every table of the last one has a result."""
    from engine.tournament import seat_round

    if event.rounds and not event.rounds[-1].complete:
        last = event.rounds[-1]
        open_tables = [str(t.number) for t in last.tables if t.number not in last.results]
        raise EventConflict(f"round {last.number} still has tables without a result: {', '.join(open_tables)}")
    return seat_round(event)


def _int(value: Any, what: str) -> int:
    from engine.errors import InvalidCommand

    if isinstance(value, bool):
        raise InvalidCommand(f"{what} must be a whole number")
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        raise InvalidCommand(f"{what} must be a whole number, not {value!r}") from None
    return number


def result_from_body(event: Tournament, body: Mapping[str, Any]) -> MonopolyResult | CatanResult:
    """A table result from plain JSON (API and CLI): Monopoly `{"ranking": [...], "assets": {name: n},
    "winner": name|null}`; Catan `{"points": {name: n}, "winner": name|null}` (no winner: ended by time)."""
    from engine.errors import IllegalCommand, InvalidCommand
    from engine.tournament import CatanResult, MonopolyResult

    winner = body.get("winner") or None
    if winner is not None and not isinstance(winner, str):
        raise InvalidCommand("winner must be a player's name")
    if event.game == "catan":
        points = body.get("points")
        if not isinstance(points, Mapping) or not points:
            raise InvalidCommand("a Catan result needs points: {player: victory points}")
        return CatanResult(points={str(k): _int(v, f"{k}'s points") for k, v in points.items()}, winner=winner)
    ranking, assets = body.get("ranking"), body.get("assets")
    if not isinstance(ranking, list) or not all(isinstance(p, str) for p in ranking):
        raise InvalidCommand("a Monopoly result needs ranking: [players, best first]")
    if not isinstance(assets, Mapping):
        raise InvalidCommand("a Monopoly result needs assets: {player: total assets}")
    values = {str(k): _int(v, f"{k}'s assets") for k, v in assets.items()}
    for better, worse in pairwise(ranking):
        if better in values and worse in values and values[better] < values[worse]:
            raise IllegalCommand("M.END.4", f"{better} is ranked above {worse} with fewer assets "
                                            f"({values[better]} < {values[worse]})")
    if winner is None and event.asset_lead_wins and ranking:
        winner = ranking[0]  # M.END.5
    return MonopolyResult(ranking=tuple(ranking), assets=values, winner=winner)


def result_from_table(db: Engine, table_id: str, event: Tournament) -> MonopolyResult:
    """The finished game at a table unit (its latest game in the store) as a Monopoly result (M.END.3/4)."""
    import engine as eng
    from engine.errors import IllegalCommand, InvalidCommand
    from engine.tournament import monopoly_result
    from hardware import store

    if event.game != "monopoly":
        raise InvalidCommand("--from-table reads a Monopoly game; a Catan result is entered by hand")
    with store.session_scope(db) as s:
        game = store.current_game(s, table_id=table_id)
        if game is None or game.id is None:
            raise InvalidCommand(f"no game at table {table_id!r} in this store")
        rows = store.load_events(s, game_id=game.id)
    store.check_sequence(rows)
    state = eng.fold([eng.event_from_json(r.payload) for r in rows])
    if state.turn.phase != "game_over":
        raise IllegalCommand("M.END.2", f"the game at table {table_id} (game {game.id}) is not over: it ends "
                                        "with the last bankruptcy (M.END.1) or after the end signal's final turn")
    return monopoly_result(state, asset_lead_wins=event.asset_lead_wins)


def record(event: Tournament, round_no: int, table_no: int, result: MonopolyResult | CatanResult) -> Tournament:
    from engine.tournament import record_result

    return record_result(event, round_no, table_no, result)


# ---- the command line ----


def register(sub: Any) -> None:
    p = sub.add_parser("event", help="tournament events: create, seat rounds, record results, standings, CSV")
    ev = p.add_subparsers(dest="action", required=True, metavar="ACTION")

    def db_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--db", default=None, help="database URL (default: SQLite in the data directory)")
        q.add_argument("--data-dir", default=None, help="data directory of the default SQLite store")

    q = ev.add_parser("create", help="create an event")
    q.add_argument("name")
    q.add_argument("--game", choices=("monopoly", "catan"), required=True)
    q.add_argument("--players", required=True, help='comma-separated names, e.g. "A,B,C,D"')
    q.add_argument("--minutes", type=float, default=None,
                   help="time limit: Monopoly game (M.END.2, default 90); Catan play after placement (C.TIME.1, 60)")
    q.add_argument("--seed", type=int, default=0, help="seating seed (the same seed seats the same way)")
    q.add_argument("--asset-lead-wins", action="store_true", help="Monopoly: an asset lead counts as a win (M.END.5)")
    db_args(q)

    q = ev.add_parser("list", help="the events in the store")
    db_args(q)

    for action, help_ in (("show", "an event's rounds, tables and results"),
                          ("seat", "seat the next round and print its tables")):
        q = ev.add_parser(action, help=help_)
        q.add_argument("event", help="event id or name")
        db_args(q)

    q = ev.add_parser("result", help="record (or correct) one table's result")
    q.add_argument("event", help="event id or name")
    q.add_argument("--round", type=int, required=True)
    q.add_argument("--table", type=int, required=True)
    q.add_argument("--ranking", default=None, help='Monopoly: players best first, "A,B,C,D" (M.END.4)')
    q.add_argument("--assets", default=None, help='Monopoly: "A=2100,B=1500,..." (M.END.3; 0 for the bankrupt)')
    q.add_argument("--points", default=None, help='Catan: victory points on the board, "A=10,B=8,C=9"')
    q.add_argument("--winner", default=None,
                   help="the winner (Monopoly: last standing M.END.1 or M.END.5; Catan: declared, C.WIN.1); "
                        "none: ended by time")
    q.add_argument("--from-table", default=None, metavar="TABLE_ID",
                   help="Monopoly: take ranking and assets from the finished game of this table unit in the store")
    db_args(q)

    for action, help_ in (("standings", "standings across rounds"), ("results", "every recorded result")):
        q = ev.add_parser(action, help=help_)
        q.add_argument("event", help="event id or name")
        q.add_argument("--csv", action="store_true", help="CSV on standard output")
        db_args(q)

    q = ev.add_parser("add-players", help="enter more players (seated from the next round)")
    q.add_argument("event")
    q.add_argument("--players", required=True)
    db_args(q)
    q = ev.add_parser("drop-player", help="a player leaves (not seated in later rounds; results stay)")
    q.add_argument("event")
    q.add_argument("player")
    db_args(q)
    p.set_defaults(func=handle)


def names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def pairs(text: str, what: str) -> dict[str, int]:
    from tableside.cli import UsageError

    out: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{what}: write NAME=NUMBER pairs separated by commas, not {part.strip()!r}")
        try:
            out[name.strip()] = int(value.strip())
        except ValueError:
            raise UsageError(f"{what}: {value.strip()!r} for {name.strip()} is not a whole number") from None
    return out


def print_round(event: Tournament, number: int) -> None:
    rnd = event.round(number)
    print(f"{event.name}: round {rnd.number} ({len(rnd.tables)} tables)")
    for t in rnd.tables:
        result = rnd.results.get(t.number)
        line = f"  table {t.number}: {', '.join(t.players)}"
        if result is not None:
            line += "   result: " + describe_result(result)
        print(line)


def describe_result(result: MonopolyResult | CatanResult) -> str:
    from engine.tournament import CatanResult

    if isinstance(result, CatanResult):
        scores = result.scores()
        shown = ", ".join(f"{p} {scores[p]}" + (f" ({v} on board)" if v != scores[p] else "")
                          for p, v in result.points.items())
        end = f"{result.winner} won (C.WIN.1)" if result.winner else "ended by time, no winner (C.SCORE.1)"
        return f"{shown}; {end}"
    shown = ", ".join(f"{i}. {p} {result.assets[p]}" for i, p in enumerate(result.ranking, start=1))
    return shown + (f"; winner {result.winner}" if result.winner else "; no winner (time)")


def print_standings(event: Tournament) -> None:
    from engine.tournament import standings

    rows = standings(event)
    score = "score (C.SCORE.1)" if event.game == "catan" else "assets (M.END.3)"
    print(f"{event.name}: standings after {sum(r.complete for r in event.rounds)} complete round(s)")
    print(f"  {'rank':>4}  {'player':<20} {'points':>6} {'wins':>4} {score:>18} {'games':>5}  places")
    for st in rows:
        print(f"  {st.rank:>4}  {st.player:<20} {st.points:>6} {st.wins:>4} {st.score:>18} {st.games:>5}  "
              f"{' '.join(map(str, st.places))}")


def handle(args: argparse.Namespace) -> int:
    from engine.tournament import results_csv, standings_csv
    from hardware import store
    from tableside.cli import UsageError, store_url

    # Only `create` may make the store; the rest read or change events that must be there already.
    db = store.open_store(store_url(args.db, args.data_dir, create=args.action == "create"))
    try:
        action = args.action
        if action == "create":
            players = names(args.players)
            stored = create_tournament(db, name=args.name, game=args.game, players=players, minutes=args.minutes,
                                       seed=args.seed, asset_lead_wins=args.asset_lead_wins)
            e = stored.event
            print(f"{stored.event_id}\t{e.name}: {e.game}, {len(e.players)} players, {e.minutes:g} minutes")
            return 0
        if action == "list":
            for st in all_events(db):
                e = st.event
                print(f"{st.event_id}\t{e.name}\t{e.game}\t{len(e.players)} players\t{len(e.rounds)} rounds")
            return 0
        if action == "show":
            st = load_event(db, args.event)
            e = st.event
            print(f"{e.name} ({st.event_id}): {e.game}, {e.minutes:g} minutes, players: {', '.join(e.players)}")
            for r in e.rounds:
                print_round(e, r.number)
            return 0
        if action == "seat":
            st = change_tournament(db, args.event, {"type": "seat"}, seat_next)
            print_round(st.event, len(st.event.rounds))
            return 0
        if action == "result":
            current = load_event(db, args.event).event
            if args.from_table:
                if args.ranking or args.assets or args.points:
                    raise UsageError("--from-table takes the result from the table's game: give no "
                                     "--ranking/--assets/--points")
                result: MonopolyResult | CatanResult = result_from_table(db, args.from_table, current)
                command: dict[str, Any] = {"from_table": args.from_table}
            else:
                if current.game == "catan":
                    if not args.points:
                        raise UsageError("a Catan result needs --points NAME=VP,... (and --winner if declared)")
                    body: dict[str, Any] = {"points": pairs(args.points, "--points"), "winner": args.winner}
                else:
                    if not (args.ranking and args.assets):
                        raise UsageError("a Monopoly result needs --ranking and --assets (or --from-table)")
                    ranking = names(args.ranking)
                    if "=" in args.assets:
                        assets = pairs(args.assets, "--assets")
                    else:  # plain numbers in the ranking's order
                        values = names(args.assets)
                        if len(values) != len(ranking):
                            raise UsageError(f"--assets: {len(values)} numbers for {len(ranking)} ranked players")
                        assets = pairs(",".join(f"{p}={v}" for p, v in zip(ranking, values, strict=True)),
                                       "--assets")
                    body = {"ranking": ranking, "assets": assets, "winner": args.winner}
                result = result_from_body(current, body)
                command = {}
            command = {"type": "result", "round": args.round, "table": args.table, "result": result.to_json(),
                       **command}
            st = change_tournament(db, args.event, command,
                                   lambda e: record(e, args.round, args.table, result))
            print(f"{st.event.name}: round {args.round} table {args.table}: {describe_result(result)}")
            return 0
        if action == "standings":
            e = load_event(db, args.event).event
            if args.csv:
                sys.stdout.write(standings_csv(e))
            else:
                print_standings(e)
            return 0
        if action == "results":
            e = load_event(db, args.event).event
            if args.csv:
                sys.stdout.write(results_csv(e))
            else:
                for r in e.rounds:
                    print_round(e, r.number)
            return 0
        if action == "add-players":
            from engine.tournament import add_players

            new = names(args.players)
            st = change_tournament(db, args.event, {"type": "add_players", "players": new},
                                   lambda e: add_players(e, new))
            print(f"{st.event.name}: {len(st.event.players)} players: {', '.join(st.event.players)}")
            return 0
        if action == "drop-player":
            from engine.tournament import drop_player

            st = change_tournament(db, args.event, {"type": "drop_player", "player": args.player},
                                   lambda e: drop_player(e, args.player))
            print(f"{st.event.name}: {args.player} dropped; {len(st.event.players)} players remain")
            return 0
        raise UsageError(f"unknown action {action!r}")
    finally:
        db.dispose()
