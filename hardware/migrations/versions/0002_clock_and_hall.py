"""The tournament hall: the clock log (append-only), unit status, and games' origin on a hall server.

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clock_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", AutoString(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("source", AutoString(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_clock_events_game_seq"),
    )
    op.create_index("ix_clock_events_game_id", "clock_events", ["game_id"])
    op.create_table(
        "unit_status",
        sa.Column("table_id", AutoString(length=64), sa.ForeignKey("table_units.id"), primary_key=True),
        sa.Column("info", sa.JSON(), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("origin", AutoString(length=100), nullable=True))
    op.create_index("uq_games_table_origin", "games", ["table_id", "origin"], unique=True)
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER clock_events_no_{action.lower()} BEFORE {action} ON clock_events "
                f"BEGIN SELECT RAISE(ABORT, 'clock_events are append-only: {action} refused'); END"
            )
    elif dialect == "postgresql":  # the function comes from 0001
        op.execute("CREATE TRIGGER clock_events_append_only BEFORE UPDATE OR DELETE ON clock_events "
                   "FOR EACH ROW EXECUTE FUNCTION tableside_append_only()")
        op.execute("CREATE TRIGGER clock_events_no_truncate BEFORE TRUNCATE ON clock_events "
                   "FOR EACH STATEMENT EXECUTE FUNCTION tableside_append_only()")
    else:
        raise RuntimeError(f"unsupported database {dialect}: the event log is append-only only on SQLite or PostgreSQL")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS clock_events_append_only ON clock_events")
        op.execute("DROP TRIGGER IF EXISTS clock_events_no_truncate ON clock_events")
    op.drop_index("uq_games_table_origin", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("origin")
    op.drop_table("unit_status")
    op.drop_table("clock_events")
