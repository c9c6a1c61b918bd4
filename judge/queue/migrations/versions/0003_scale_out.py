"""Scale-out: admission counted in the store (per address too), who holds a running submission, dispatch marks.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("submissions", sa.Column("address", sa.String(64), nullable=True))
    op.add_column("submissions", sa.Column("worker", sa.String(200), nullable=True))
    op.add_column("submissions", sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_submissions_address", "submissions", ["address"])
    lock = op.create_table(
        "admission",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("admitted", sa.Integer(), nullable=False),
    )
    op.bulk_insert(lock, [{"id": 1, "admitted": 0}])


def downgrade() -> None:
    op.drop_table("admission")
    op.drop_index("ix_submissions_address", "submissions")
    op.drop_column("submissions", "dispatched_at")
    op.drop_column("submissions", "worker")
    op.drop_column("submissions", "address")
