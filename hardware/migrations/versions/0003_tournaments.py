"""Tournament events: every change to an event stored as a new version (append-only).

Revision ID: 0003
Revises: 0002
Create Date: 2025-02-15
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("event_id", AutoString(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("name", AutoString(length=200), nullable=False),
        sa.Column("command", sa.JSON(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("actor", AutoString(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("event_id", "version", name="uq_tournament_versions_event_version"),
    )
    op.create_index("ix_tournament_versions_event_id", "tournament_versions", ["event_id"])
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER tournament_versions_no_{action.lower()} BEFORE {action} ON tournament_versions "
                f"BEGIN SELECT RAISE(ABORT, 'tournament_versions are append-only: {action} refused'); END"
            )
    elif dialect == "postgresql":  # the function comes from 0001
        op.execute("CREATE TRIGGER tournament_versions_append_only BEFORE UPDATE OR DELETE ON tournament_versions "
                   "FOR EACH ROW EXECUTE FUNCTION tableside_append_only()")
        op.execute("CREATE TRIGGER tournament_versions_no_truncate BEFORE TRUNCATE ON tournament_versions "
                   "FOR EACH STATEMENT EXECUTE FUNCTION tableside_append_only()")
    else:
        raise RuntimeError(f"unsupported database {dialect}: the event log is append-only only on SQLite or PostgreSQL")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS tournament_versions_append_only ON tournament_versions")
        op.execute("DROP TRIGGER IF EXISTS tournament_versions_no_truncate ON tournament_versions")
    op.drop_index("ix_tournament_versions_event_id", table_name="tournament_versions")
    op.drop_table("tournament_versions")
