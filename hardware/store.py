"""The one persistence module: SQLModel tables, the engine of a database URL, and keyword-only functions
that take a session.

What is kept: table units, games, their players, the append-only event log, calibrations and the rolls the
camera read (the annotated frame of each is a JPEG on disk; the row keeps its path), and tournament events
(every organiser change a new append-only version of the event).

Safety, and why:
- SQLite runs in WAL mode with `synchronous=FULL`: a commit returns only once the log is on disk, so an
  event the service acknowledged survives a power cut, and readers (the web threads) never block the
  writer. Foreign keys are switched on per connection (SQLite's default is off).
- The schema is made by Alembic migrations only (hardware/migrations), never by `create_all`, so a hall
  server's database and a table unit's file have the same history and can be upgraded in place.
- The event log and the roll log refuse UPDATE and DELETE in the database itself (triggers created by the
  migration): no code path, bug or hand-typed SQL can rewrite history. Corrections are new events.
- `(game_id, seq)` is unique: two writers that both think they append event N can't both succeed, so an
  event is never doubled.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import JSON, Column, Field, Session, SQLModel, UniqueConstraint, col, func, select

MIGRATIONS = Path(__file__).with_name("migrations")
SOURCES = ("camera", "clerk", "system", "button")  # button: the table's push button (hardware/buttons.py)
CLOCK_SOURCES = ("referee", "clerk", "system")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(when: datetime) -> datetime:
    """`when` with its zone: SQLite hands datetimes back without one; they were written as UTC."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def iso(when: datetime) -> str:
    """ISO 8601 with the zone."""
    return as_utc(when).isoformat()


# ---- tables ---------------------------------------------------------------------------------------------


class TableUnit(SQLModel, table=True):
    """One physical table (a Pi with a camera, or a table run from a laptop)."""

    __tablename__ = "table_units"
    id: str = Field(primary_key=True, max_length=64)
    name: str = Field(max_length=200)
    clerk_pin: str = Field(max_length=64)
    source: str = Field(default="", max_length=500)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class Game(SQLModel, table=True):
    __tablename__ = "games"
    __table_args__ = (sa.Index("uq_games_table_origin", "table_id", "origin", unique=True),)
    id: int | None = Field(default=None, primary_key=True)
    table_id: str = Field(foreign_key="table_units.id", index=True, max_length=64)
    ruleset: str = Field(max_length=40)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seed: int | None = Field(default=None, sa_type=sa.BigInteger)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))
    imported_from: str | None = Field(default=None, max_length=500)
    # On a hall server: the game's id in the table unit's own store, for games replicated from a unit
    # (hardware/replication.py). Unique per table, so a replicated game is never created twice.
    origin: str | None = Field(default=None, max_length=100)


class GamePlayer(SQLModel, table=True):
    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("game_id", "seat"), UniqueConstraint("game_id", "name"))
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    name: str = Field(max_length=100)


class EventRow(SQLModel, table=True):
    """One engine event. Append-only: the database refuses UPDATE and DELETE on this table."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # 1, 2, 3... within the game, without gaps
    type: str = Field(max_length=40)
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))  # event.to_json()
    source: str = Field(max_length=20)  # camera | clerk | system
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class ClockEventRow(SQLModel, table=True):
    """One event of a game's tournament clock (engine.clock), append-only like the event log.

    seq 1 is always `{"type": "configured", "config": ClockConfig.to_json()}`; the rest are
    `engine.clock` events' `to_json()` (with `at`, epoch seconds). Kept apart from the game's event log so
    the engine's fold never sees them, and so a table without a clock has none."""

    __tablename__ = "clock_events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_clock_events_game_seq"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int
    type: str = Field(max_length=40)
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    source: str = Field(max_length=20)  # referee | clerk | system
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class UnitStatus(SQLModel, table=True):
    """What a table unit last told the hall server about itself (camera, round, when): one row per table,
    overwritten by the unit's replicator. Not history: the logs are the history."""

    __tablename__ = "unit_status"
    table_id: str = Field(foreign_key="table_units.id", primary_key=True, max_length=64)
    info: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seen_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class CalibrationRow(SQLModel, table=True):
    __tablename__ = "calibrations"
    id: int | None = Field(default=None, primary_key=True)
    table_id: str = Field(foreign_key="table_units.id", index=True, max_length=64)
    data: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))  # Calibration.to_json()
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class RollRow(SQLModel, table=True):
    """A throw the camera read (or a roll typed by the clerk), applied or not. Append-only like events."""

    __tablename__ = "rolls"
    __table_args__ = (UniqueConstraint("table_id", "n", name="uq_rolls_table_n"),)
    id: int | None = Field(default=None, primary_key=True)
    table_id: str = Field(foreign_key="table_units.id", index=True, max_length=64)
    game_id: int | None = Field(default=None, foreign_key="games.id")
    n: int  # 1, 2, 3... per table
    verdict: str = Field(max_length=20)  # ok | reroll | unreadable
    reason: str = Field(default="", max_length=500)
    dice: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    applied: bool = False  # became a `roll` command the engine accepted
    outcome: str = Field(default="", max_length=500)  # what the service did with it, in words
    first_seq: int | None = None  # first event of the command it led to (roll or void_throw)
    image_path: str | None = Field(default=None, max_length=1000)
    source: str = Field(default="camera", max_length=20)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class TournamentVersion(SQLModel, table=True):
    """One version of a tournament event (engine.tournament): the whole event as `tournament_to_json` after
    one organiser command (`command`: what was done, e.g. `{"type": "seat", "round": 2}`). Append-only like
    the event log: a correction is a new version; the latest version is the event. `(event_id, version)`
    is unique, so two organisers changing the same event at once can't both succeed."""

    __tablename__ = "tournament_versions"
    __table_args__ = (UniqueConstraint("event_id", "version", name="uq_tournament_versions_event_version"),)
    id: int | None = Field(default=None, primary_key=True)
    event_id: str = Field(index=True, max_length=64)
    version: int  # 1, 2, 3... per event
    name: str = Field(max_length=200)
    command: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    data: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    actor: str = Field(max_length=40)  # cli | organiser | api
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


# ---- engine and migrations ------------------------------------------------------------------------------


def sqlite_url(path: str | Path) -> str:
    return f"sqlite:///{Path(path)}"


def make_engine(url: str) -> Engine:
    """An SQLAlchemy engine for `url`; SQLite connections get WAL, synchronous=FULL and foreign keys."""
    if url.startswith("sqlite"):
        db_path = sa.engine.make_url(url).database
        if db_path and db_path != ":memory:":
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        eng = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @sa.event.listens_for(eng, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return eng
    if url.startswith("postgresql") and "+psycopg" not in url.split("://", 1)[0]:
        url = "postgresql+psycopg://" + url.split("://", 1)[1]  # psycopg 3 is the driver we ship
    return sa.create_engine(url, pool_pre_ping=True)


def alembic_config(connection: sa.Connection | None = None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision` (idempotent). On PostgreSQL an advisory lock serialises table units
    that start at the same moment against one hall server."""
    from alembic import command

    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(604060)"))
        command.upgrade(alembic_config(conn), revision)


class StoreUnavailable(OSError):
    """The database named cannot be opened (a server not reached, a refused login, a malformed URL): the
    message names it, its password hidden."""


def open_store(url: str) -> Engine:
    """The store at `url`, its schema brought up to date; StoreUnavailable where it cannot be opened."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError as exc:
        raise StoreUnavailable(f"not a database URL: {url!r} ({exc})") from exc
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        # The append-only triggers (the first migration) exist for these two only.
        raise StoreUnavailable(f"cannot open the database {shown}: Tableside keeps its games in SQLite or "
                               f"PostgreSQL, not {parsed.get_backend_name()}")
    try:
        eng = make_engine(url)
        migrate(eng)
    except (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.ArgumentError) as exc:
        # The driver's first line says what failed (refused, unknown host, bad password); the rest is advice.
        why = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise StoreUnavailable(f"cannot open the database {shown}: {why}") from exc
    return eng


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session whose work is committed at the end of the block, or rolled back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


# ---- tables and games -----------------------------------------------------------------------------------


def ensure_table(session: Session, *, table_id: str, name: str, clerk_pin: str, source: str = "") -> TableUnit:
    """The table's row, created on first use. An existing table keeps its PIN (clerks already know it)."""
    row = session.get(TableUnit, table_id)
    if row is None:
        row = TableUnit(id=table_id, name=name, clerk_pin=clerk_pin, source=source)
        session.add(row)
        session.flush()
    elif row.source != source and source:
        row.source = source
        session.add(row)
    return row


def get_table(session: Session, *, table_id: str) -> TableUnit | None:
    return session.get(TableUnit, table_id)


def create_game(session: Session, *, table_id: str, players: Sequence[str], ruleset: str,
                options: Mapping[str, Any], seed: int | None, imported_from: str | None = None) -> Game:
    game = Game(table_id=table_id, ruleset=ruleset, options=dict(options), seed=seed, imported_from=imported_from)
    session.add(game)
    session.flush()
    assert game.id is not None
    for seat, name in enumerate(players):
        session.add(GamePlayer(game_id=game.id, seat=seat, name=name))
    session.flush()
    return game


def current_game(session: Session, *, table_id: str) -> Game | None:
    """The table's latest game (the one a restarted service carries on)."""
    stmt = select(Game).where(Game.table_id == table_id).order_by(col(Game.id).desc()).limit(1)
    return session.exec(stmt).first()


def get_game(session: Session, *, game_id: int) -> Game | None:
    return session.get(Game, game_id)


def list_games(session: Session, *, table_id: str | None = None) -> list[Game]:
    stmt = select(Game).order_by(col(Game.id))
    if table_id is not None:
        stmt = stmt.where(Game.table_id == table_id)
    return list(session.exec(stmt).all())


def game_players(session: Session, *, game_id: int) -> list[str]:
    stmt = select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(col(GamePlayer.seat))
    return [p.name for p in session.exec(stmt).all()]


# ---- the event log --------------------------------------------------------------------------------------


def last_seq(session: Session, *, game_id: int) -> int:
    value = session.exec(select(func.max(EventRow.seq)).where(EventRow.game_id == game_id)).one()
    return int(value or 0)


def append_events(session: Session, *, game_id: int, first_seq: int, events: Sequence[Mapping[str, Any]],
                  source: str, at: datetime | None = None) -> list[EventRow]:
    """Append events (their `to_json()` dicts) numbered from `first_seq`. Nothing is committed here: the
    caller commits once, so one command's events are stored all together or not at all."""
    if source not in SOURCES:
        raise ValueError(f"unknown event source {source!r} (one of {', '.join(SOURCES)})")
    when = at or utcnow()
    rows = []
    for i, payload in enumerate(events):
        kind = payload.get("type")
        if not isinstance(kind, str):
            raise ValueError(f"event without a type: {payload!r}")
        row = EventRow(game_id=game_id, seq=first_seq + i, type=kind, payload=dict(payload), source=source,
                       created_at=when)
        session.add(row)
        rows.append(row)
    session.flush()
    return rows


def load_events(session: Session, *, game_id: int, after: int = 0, limit: int | None = None) -> list[EventRow]:
    stmt = (select(EventRow).where(EventRow.game_id == game_id, EventRow.seq > after)
            .order_by(col(EventRow.seq)))
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(session.exec(stmt).all())


def check_sequence(rows: Sequence[EventRow], start: int = 1) -> None:
    """Raise ValueError unless the rows are numbered start, start+1, ... without gap or repeat."""
    for expected, row in enumerate(rows, start=start):
        if row.seq != expected:
            raise ValueError(f"event log of game {row.game_id} has seq {row.seq} where {expected} was expected")


# ---- the clock log ----------------------------------------------------------------------------------------


def append_clock_event(session: Session, *, game_id: int, seq: int, payload: Mapping[str, Any], source: str,
                       at: datetime | None = None) -> ClockEventRow:
    if source not in CLOCK_SOURCES:
        raise ValueError(f"unknown clock source {source!r} (one of {', '.join(CLOCK_SOURCES)})")
    row = ClockEventRow(game_id=game_id, seq=seq, type=str(payload["type"]), payload=dict(payload),
                        source=source, created_at=at or utcnow())
    session.add(row)
    session.flush()
    return row


def load_clock_events(session: Session, *, game_id: int, after: int = 0) -> list[ClockEventRow]:
    stmt = (select(ClockEventRow).where(ClockEventRow.game_id == game_id, ClockEventRow.seq > after)
            .order_by(col(ClockEventRow.seq)))
    return list(session.exec(stmt).all())


def last_clock_seq(session: Session, *, game_id: int) -> int:
    value = session.exec(select(func.max(ClockEventRow.seq)).where(ClockEventRow.game_id == game_id)).one()
    return int(value or 0)


# ---- rolls and calibrations -----------------------------------------------------------------------------


def next_roll_number(session: Session, *, table_id: str) -> int:
    value = session.exec(select(func.max(RollRow.n)).where(RollRow.table_id == table_id)).one()
    return int(value or 0) + 1


def add_roll(session: Session, *, table_id: str, game_id: int | None, n: int, verdict: str, reason: str,
             dice: Sequence[Mapping[str, Any]], applied: bool, outcome: str, first_seq: int | None,
             image_path: str | None, source: str = "camera", at: datetime | None = None) -> RollRow:
    row = RollRow(table_id=table_id, game_id=game_id, n=n, verdict=verdict, reason=reason,
                  dice=[dict(d) for d in dice], applied=applied, outcome=outcome, first_seq=first_seq,
                  image_path=image_path, source=source, created_at=at or utcnow())
    session.add(row)
    session.flush()
    return row


def last_roll(session: Session, *, table_id: str) -> RollRow | None:
    stmt = select(RollRow).where(RollRow.table_id == table_id).order_by(col(RollRow.n).desc()).limit(1)
    return session.exec(stmt).first()


def get_roll(session: Session, *, table_id: str, n: int) -> RollRow | None:
    return session.exec(select(RollRow).where(RollRow.table_id == table_id, RollRow.n == n)).first()


def list_rolls(session: Session, *, game_id: int) -> list[RollRow]:
    return list(session.exec(select(RollRow).where(RollRow.game_id == game_id).order_by(col(RollRow.n))).all())


def save_calibration(session: Session, *, table_id: str, data: Mapping[str, Any]) -> CalibrationRow:
    row = CalibrationRow(table_id=table_id, data=dict(data))
    session.add(row)
    session.flush()
    return row


def latest_calibration(session: Session, *, table_id: str) -> CalibrationRow | None:
    stmt = (select(CalibrationRow).where(CalibrationRow.table_id == table_id)
            .order_by(col(CalibrationRow.id).desc()).limit(1))
    return session.exec(stmt).first()


# ---- tournament events ----------------------------------------------------------------------------------


def save_tournament(session: Session, *, event_id: str, version: int, name: str, command: Mapping[str, Any],
                    data: Mapping[str, Any], actor: str, at: datetime | None = None) -> TournamentVersion:
    """Append version `version` of the event (1 creates it). The caller checks the data (engine.tournament)
    and picks `version` = the version it read + 1; a concurrent writer makes the flush fail on the unique
    `(event_id, version)`."""
    if version < 1:
        raise ValueError("versions start at 1")
    row = TournamentVersion(event_id=event_id, version=version, name=name, command=dict(command),
                            data=dict(data), actor=actor, created_at=at or utcnow())
    session.add(row)
    session.flush()
    return row


def load_tournament(session: Session, *, event_id: str, version: int | None = None) -> TournamentVersion | None:
    """The event's latest version (or the one asked for); None when there is no such event."""
    stmt = select(TournamentVersion).where(TournamentVersion.event_id == event_id)
    if version is not None:
        stmt = stmt.where(TournamentVersion.version == version)
    return session.exec(stmt.order_by(col(TournamentVersion.version).desc()).limit(1)).first()


def tournament_history(session: Session, *, event_id: str) -> list[TournamentVersion]:
    stmt = (select(TournamentVersion).where(TournamentVersion.event_id == event_id)
            .order_by(col(TournamentVersion.version)))
    return list(session.exec(stmt).all())


def list_tournaments(session: Session) -> list[TournamentVersion]:
    """The latest version of every event, oldest event first."""
    latest = (select(TournamentVersion.event_id, func.max(TournamentVersion.version).label("v"),
                     func.min(TournamentVersion.id).label("first"))
              .group_by(col(TournamentVersion.event_id)).subquery())
    stmt = (select(TournamentVersion)
            .join(latest, sa.and_(col(TournamentVersion.event_id) == latest.c.event_id,
                                  col(TournamentVersion.version) == latest.c.v))
            .order_by(latest.c.first))
    return list(session.exec(stmt).all())


# ---- export / import ------------------------------------------------------------------------------------

RECORD_FORMAT = "tableside-game"
RECORD_VERSION = 1


def game_record(session: Session, *, game_id: int) -> dict[str, Any]:
    """A game as one JSON-able value: the game's header and its whole event log (replayable by folding)."""
    game = session.get(Game, game_id)
    if game is None:
        raise KeyError(game_id)
    events = load_events(session, game_id=game_id)
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": {
            "id": game.id,
            "table": game.table_id,
            "ruleset": game.ruleset,
            "options": game.options,
            "seed": game.seed,
            "players": game_players(session, game_id=game_id),
            "created_at": iso(game.created_at),
        },
        "events": [
            {"seq": e.seq, "type": e.type, "source": e.source, "time": iso(e.created_at),
             "payload": e.payload}
            for e in events
        ],
    }


def dumps_payload(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
