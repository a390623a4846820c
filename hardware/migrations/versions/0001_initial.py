"""The first schema: table units, games, players, the append-only event log, calibrations, rolls.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

APPEND_ONLY = ("events", "rolls")


def upgrade() -> None:
    op.create_table(
        "table_units",
        sa.Column("id", AutoString(length=64), primary_key=True),
        sa.Column("name", AutoString(length=200), nullable=False),
        sa.Column("clerk_pin", AutoString(length=64), nullable=False),
        sa.Column("source", AutoString(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", AutoString(length=64), sa.ForeignKey("table_units.id"), nullable=False),
        sa.Column("ruleset", AutoString(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("imported_from", AutoString(length=500), nullable=True),
    )
    op.create_index("ix_games_table_id", "games", ["table_id"])
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", AutoString(length=100), nullable=False),
        sa.UniqueConstraint("game_id", "seat"),
        sa.UniqueConstraint("game_id", "name"),
    )
    op.create_index("ix_players_game_id", "players", ["game_id"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", AutoString(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("source", AutoString(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),
    )
    op.create_index("ix_events_game_id", "events", ["game_id"])
    op.create_table(
        "calibrations",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", AutoString(length=64), sa.ForeignKey("table_units.id"), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_calibrations_table_id", "calibrations", ["table_id"])
    op.create_table(
        "rolls",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", AutoString(length=64), sa.ForeignKey("table_units.id"), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("verdict", AutoString(length=20), nullable=False),
        sa.Column("reason", AutoString(length=500), nullable=False),
        sa.Column("dice", sa.JSON(), nullable=False),
        sa.Column("applied", sa.Boolean(), nullable=False),
        sa.Column("outcome", AutoString(length=500), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=True),
        sa.Column("image_path", AutoString(length=1000), nullable=True),
        sa.Column("source", AutoString(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "n", name="uq_rolls_table_n"),
    )
    op.create_index("ix_rolls_table_id", "rolls", ["table_id"])
    _append_only()


def _append_only() -> None:
    """History can't be rewritten: the database itself refuses UPDATE and DELETE (and, on PostgreSQL,
    TRUNCATE) on the event and roll logs, whoever asks."""
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in APPEND_ONLY:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} are append-only: {action} refused'); END"
                )
    elif dialect == "postgresql":
        op.execute(
            """
            CREATE FUNCTION tableside_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION '% are append-only: % refused', TG_TABLE_NAME, TG_OP
                    USING ERRCODE = 'restrict_violation';
            END $$
            """
        )
        for table in APPEND_ONLY:
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       f"FOR EACH ROW EXECUTE FUNCTION tableside_append_only()")
            op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                       f"FOR EACH STATEMENT EXECUTE FUNCTION tableside_append_only()")
    else:
        raise RuntimeError(f"unsupported database {dialect}: the event log is append-only only on SQLite or PostgreSQL")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION IF EXISTS tableside_append_only()")
    for table in ("rolls", "calibrations", "events", "players", "games", "table_units"):
        op.drop_table(table)
