"""Alembic environment for the Tableside store. Driven programmatically by `hardware.store.migrate`, which
passes an open connection in `config.attributes["connection"]`; no alembic.ini is needed. For the
`alembic` command line, `-x url=...` names the database."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine
from sqlmodel import SQLModel

import hardware.store  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
target_metadata = SQLModel.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("give the database as: alembic -x url=sqlite:///path/to/tableside.db ...")
    with create_engine(url).begin() as conn:
        _run(conn)


def _run(connection: Connection) -> None:
    # render_as_batch: SQLite can't ALTER most things; batch mode copies the table, so later migrations work
    # on both databases.
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


run()
