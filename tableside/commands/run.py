"""`tableside run`: the program a table runs.

No options: the demo table. The project's simulated camera throws dice on a rendered board, the roll
watcher reads each throw, the engine keeps the bank, every event goes to SQLite in the user's data
directory, and the JSON API (and the pages, where installed) is served by waitress at
http://127.0.0.1:8000. On a demo table an automatic clerk answers what the camera can't see (buy or not,
auctions, cards) so the game plays itself; a real table waits for its clerk.

The dice reader is chosen explicitly: `--reader real` (the default, `vision.read_dice`) or
`--reader sim-truth` (the simulator's ground truth, only with the simulated camera: for demos and tests
while the real reader can't yet read rendered dice).
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
from pathlib import Path
from typing import Any

DEFAULT_PORT = 8000


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run the table: camera -> rules -> store -> dashboard/API (no options: demo)",
                       description=__doc__)
    p.add_argument("--source", default=None,
                   help="picamera[:N] | webcam:N | video:PATH | folder:DIR | sim[:SEED] (default: the demo's "
                        "simulated camera); 'none' for a table without a camera")
    p.add_argument("--db", default=None, help="database URL (default: SQLite in the data directory; "
                                               "postgresql+psycopg://user:pw@host/db for a hall server)")
    p.add_argument("--data-dir", default=None, help="where the SQLite file and roll pictures go "
                                                    "(default: the user's data directory)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1; 0.0.0.0 for "
                                                        "the room)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--table", default=None, help="table id (default: 'demo' for the simulated camera, "
                                                 "'table-1' otherwise)")
    p.add_argument("--name", default=None, help="table name shown on the hall display")
    p.add_argument("--players", default="Aiko,Ben,Chie,Dan", help="comma-separated names for a new game")
    p.add_argument("--ruleset", default="jma-2006", help="ruleset of a new game (jma-2006, jma-2003, classic)")
    p.add_argument("--seed", type=int, default=None, help="seed of a new game's decks")
    p.add_argument("--new-game", action="store_true", help="start a new game instead of carrying on the last")
    p.add_argument("--reader", choices=("real", "sim-truth"), default="real",
                   help="dice reader: real (vision.read_dice) or sim-truth (simulator ground truth)")
    p.add_argument("--auto-clerk", action=argparse.BooleanOptionalAction, default=None,
                   help="answer decisions automatically (default: on for the simulated camera only)")
    p.add_argument("--calibration", default=None, help="calibration file for the camera")
    p.add_argument("--pin", default=None, help="clerk PIN for a new table (default: random, printed)")
    p.add_argument("--organiser-pin", default=None, metavar="PIN",
                   help="organiser PIN for /events (default: $TABLESIDE_ORGANISER_PIN; the demo table makes a random "
                        "one and prints it; otherwise none, and events are read-only)")
    p.add_argument("--threads", type=int, default=32,
                   help="web server threads; each live dashboard holds one (default 32)")
    p.add_argument("--clock", default=None,
                   help="tournament clock for a new game: monopoly[:MINUTES] (90 by default, M.END.2) or catan "
                        "(C.TIME.1: 1 minute per settlement, then 60 minutes); the referee starts it")
    p.add_argument("--button", default=None, metavar="GPIO",
                   help="a push button on this GPIO pin (Pi, gpiozero): tap ends the turn, hold undoes")
    p.add_argument("--round", default=None, help="round label shown on the hall display (e.g. R2)")
    p.add_argument("--hall-db", default=None,
                   help="the hall's PostgreSQL URL: this table plays on its own store and replicates to the hall "
                        "(catching up after the server was away)")
    p.add_argument("--mirror", default=None, metavar="URL",
                   help="run no table: serve the hall display (/) and read-only dashboards of every table "
                        "replicated to this PostgreSQL server")
    p.set_defaults(func=handle)


def _clock_config(spec: str | None, players: list[str]) -> Any:
    if not spec:
        return None
    from engine.clock import catan_config, monopoly_config
    from tableside.cli import UsageError

    kind, _, minutes = spec.partition(":")
    try:
        if kind == "monopoly":
            return monopoly_config(float(minutes)) if minutes else monopoly_config()
        if kind == "catan":
            return catan_config(players, float(minutes)) if minutes else catan_config(players)
    except ValueError as exc:
        raise UsageError(f"--clock {spec}: {exc}") from exc
    raise UsageError("--clock is monopoly[:MINUTES] or catan[:PLAY_MINUTES]")


NO_ORGANISER = "tableside: no organiser PIN: events are read-only (--organiser-pin or TABLESIDE_ORGANISER_PIN)"


def _listen(app: Any, host: str, port: int, threads: int) -> Any:
    """The waitress server, its socket bound (serving starts at its run()); a port that cannot be had is one line."""
    import errno

    from waitress import create_server

    from tableside.cli import UsageError

    try:
        # Enough threads for live clients: every open dashboard holds one for its event stream.
        return create_server(app, host=host, port=port, threads=threads, channel_timeout=60, ident="tableside")
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on {host} is in use (another tableside run?): stop it or give --port") \
                from None
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _organiser_pin(args: argparse.Namespace) -> str | None:
    from tableside.cli import UsageError

    if args.organiser_pin is not None and not args.organiser_pin.strip():
        raise UsageError("--organiser-pin must not be empty")
    return args.organiser_pin or os.environ.get("TABLESIDE_ORGANISER_PIN") or None


def _serve_mirror(args: argparse.Namespace) -> int:
    """The hall server: every table unit replicated to the PostgreSQL server, read live."""
    from hardware import store
    from hardware.hall import HallMirror
    from web import create_app

    db = store.open_store(args.mirror)
    mirror = HallMirror(db, log=lambda line: print(line, flush=True))
    # Read-only: no clerk writes reach a mirrored table, so a per-run session key is enough.
    organiser_pin = _organiser_pin(args)
    app = create_app({"DEMO": True, "ORGANISER_PIN": organiser_pin}, registry=mirror)  # type: ignore[arg-type]
    server = _listen(app, args.host, args.port, max(args.threads, 8))
    host = args.host if args.host not in ("0.0.0.0", "::") else "127.0.0.1"
    print(f"tableside: serving http://{host}:{server.effective_port}/ (the hall of {_redact(args.mirror)})", flush=True)
    if organiser_pin is None:
        print(NO_ORGANISER, flush=True)

    def stop(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    mirror.start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        mirror.stop()
        server.close()
        db.dispose()
        print("tableside: stopped", flush=True)
    return 0


def handle(args: argparse.Namespace) -> int:
    from tableside import cli
    from tableside.cli import UsageError

    if getattr(args, "mirror", None):
        return _serve_mirror(args)
    source_spec = args.source or "sim:0"
    simulated = source_spec.partition(":")[0] in ("sim", "simulated")
    if args.reader == "sim-truth" and not simulated:
        raise UsageError("--reader sim-truth works only with the simulated camera (--source sim[:SEED])")
    if args.threads < 4:
        raise UsageError("--threads must be at least 4")
    data_dir = cli.data_dir(args.data_dir)
    db_url = cli.store_url(args.db, args.data_dir, create=True)
    table_id = args.table or ("demo" if simulated else "table-1")
    players = [n.strip() for n in args.players.split(",") if n.strip()]
    auto_clerk = simulated if args.auto_clerk is None else args.auto_clerk

    from hardware import store
    from hardware.service import TableRegistry, TableService
    from web import ConfigError, create_app

    organiser_pin = _organiser_pin(args)
    organiser_made = organiser_pin is None and simulated
    if organiser_made:
        # The demo's events pages can be tried out as they are; a real table's organiser chooses the PIN.
        organiser_pin = f"{secrets.randbelow(10**6):06d}"
    registry = TableRegistry()
    try:
        # First, so a missing secret key is reported before anything is opened or written.
        app = create_app({"DEMO": simulated, "ORGANISER_PIN": organiser_pin}, registry=registry)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    # Then the port, before the store is opened: a second `tableside run` on a taken port stops here, having
    # folded and started nothing. (It serves from server.run(), once the table is in the registry.)
    server = _listen(app, args.host, args.port, args.threads)
    button = None
    table: list[Any] = []  # the table, once up, for the button's presses (one before then does nothing)
    try:
        if args.button is not None:
            from hardware.buttons import TableButton

            def confirm() -> None:
                if table:
                    print(f"button: {table[0].press_confirm()}", flush=True)

            def undo() -> None:
                if table:
                    print(f"button: {table[0].press_undo()}", flush=True)

            # Tap = "roll done" (ends the turn when the rules allow it), hold = undo (M.PROC.1). Made before the
            # store is opened: a GPIO that is not there stops the start with nothing written.
            button = TableButton(args.button, on_confirm=confirm, on_undo=undo)
        calibration = calibration_made = None
        if args.calibration:
            from datetime import UTC, datetime

            from calibration.io import load

            calibration = load(args.calibration)
            # (A calibration the table stored after this file was written, corners clicked in the console, wins.)
            calibration_made = datetime.fromtimestamp(Path(args.calibration).stat().st_mtime, UTC)
        source = _open_source(source_spec)

        def log(line: str) -> None:
            print(line, flush=True)

        db = store.open_store(db_url)
        service = TableService(
            db, table_id=table_id, name=args.name or ("Demo table" if simulated else table_id),
            clerk_pin=args.pin, players=players, ruleset=args.ruleset, seed=args.seed, source=source,
            reader=args.reader, calibration=calibration, calibration_made=calibration_made,
            image_dir=data_dir / "rolls", auto_clerk=auto_clerk,
            new_game=args.new_game, log=log, clock=_clock_config(args.clock, players), round_label=args.round)
        registry.add(service)
        replicator = None
        if args.hall_db:
            from hardware.replication import Replicator

            replicator = Replicator(db, args.hall_db, table_ids=[service.id], log=log,
                                    status=lambda _tid: {"camera": service.camera_status(),
                                                         "round": service.round_label})
            service.add_listener(replicator.wake)
            print(f"tableside: replicating to the hall at {_redact(args.hall_db)}", flush=True)

        port = server.effective_port
        host = args.host if args.host not in ("0.0.0.0", "::") else "127.0.0.1"
        print(f"tableside: table {service.id} ({service.name}), game {service.game_id} at event {service.seq}",
              flush=True)
        print(f"tableside: store {_redact(db_url)}; pictures in {data_dir / 'rolls'}", flush=True)
        cam = "none (rolls typed by the clerk)" if source is None else f"{source.name}, {args.reader} reader"
        print(f"tableside: camera {cam}; automatic clerk {'on' if auto_clerk else 'off'}", flush=True)
        print(f"tableside: clerk PIN {service.clerk_pin}", flush=True)
        if organiser_made:
            print(f"tableside: organiser PIN {organiser_pin} (events http://{host}:{port}/events)", flush=True)
        elif organiser_pin is None:
            print(NO_ORGANISER, flush=True)
        print(f"tableside: dashboard http://{host}:{port}/tables/{service.id}  clerk console "
              f"http://{host}:{port}/tables/{service.id}/clerk  hall http://{host}:{port}/", flush=True)
        print(f"tableside: serving http://{host}:{port}/api/tables/{service.id}/state", flush=True)
        table.append(service)
        if button is not None:
            print(f"tableside: button on GPIO {args.button}: tap ends the turn, hold undoes", flush=True)

        def stop(_signum: int, _frame: Any) -> None:
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        registry.start()
        if replicator is not None:
            replicator.start()
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            registry.stop()
            if replicator is not None:
                replicator.stop()
            db.dispose()
            print("tableside: stopped", flush=True)
        return 0
    finally:
        if button is not None:
            button.close()
        server.close()


def _open_source(spec: str) -> Any:
    if spec == "none":
        return None
    from hardware.sources import open_source

    if spec.partition(":")[0] in ("sim", "simulated"):
        # The demo's camera runs at the wall clock, like a real one.
        return open_source(spec, realtime=True)
    return open_source(spec)


def _redact(url: str) -> str:
    """The URL without its password, for the console."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else url
