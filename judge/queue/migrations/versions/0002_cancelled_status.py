"""A submission may end `cancelled` (the learner stopped it): the status column holds 9 characters.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:  # batch: SQLite rebuilds the table to change a type
        batch.alter_column("status", existing_type=sa.String(8), type_=sa.String(16), existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.alter_column("status", existing_type=sa.String(16), type_=sa.String(8), existing_nullable=False)
