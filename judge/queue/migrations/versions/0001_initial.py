"""Submissions and their events.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("learner", sa.String(64), nullable=False),
        sa.Column("problem_id", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("file_name", sa.String(100), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("report", sa.Text(), nullable=True),
    )
    op.create_index("ix_submissions_learner", "submissions", ["learner"])
    op.create_index("ix_submissions_status", "submissions", ["status"])
    op.create_index("ix_submissions_learner_problem", "submissions", ["learner", "problem_id", "created_at"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("submission_id", sa.String(64), sa.ForeignKey("submissions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_events_submission_id", "events", ["submission_id"])


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("submissions")
