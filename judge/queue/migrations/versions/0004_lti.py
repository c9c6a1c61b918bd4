"""LTI 1.3 tool: platforms and deployments, the tool's keys, OIDC states and nonces, courses, links, the outbox.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_login_url", sa.Text(), nullable=False),
        sa.Column("auth_token_url", sa.Text(), nullable=False),
        sa.Column("key_set_url", sa.Text(), nullable=False),
        sa.Column("auth_audience", sa.Text(), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments"),
    )
    op.create_index("ix_lti_deployments_platform_id", "lti_deployments", ["platform_id"])
    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.Text(), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("drop_at", WHEN, nullable=True),
    )
    op.create_table(
        "lti_values",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
    )
    op.create_index("ix_lti_values_expires_at", "lti_values", ["expires_at"])
    op.create_table(
        "lti_users",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("email", sa.String(255), nullable=False),
        sa.Column("roles", sa.Text(), nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.UniqueConstraint("issuer", "deployment_id", "context_id", "sub", name="uq_lti_users"),
    )
    op.create_index("ix_lti_users_context_id", "lti_users", ["context_id"])
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("memberships_url", sa.Text(), nullable=True),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.UniqueConstraint("issuer", "deployment_id", "context_id", name="uq_lti_contexts"),
    )
    op.create_table(
        "lti_links",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("context_pk", sa.Integer(), sa.ForeignKey("lti_contexts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("resource_link_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("exercise", sa.String(16), nullable=False),
        sa.Column("score_policy", sa.String(8), nullable=False),
        sa.Column("lineitem", sa.Text(), nullable=True),
        sa.Column("ags_scopes", sa.Text(), nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.UniqueConstraint("context_pk", "resource_link_id", name="uq_lti_links"),
    )
    op.create_index("ix_lti_links_context_pk", "lti_links", ["context_pk"])
    op.create_table(
        "lti_passbacks",
        sa.Column(
            "submission_id", sa.String(64), sa.ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("link_id", sa.Integer(), sa.ForeignKey("lti_links.id", ondelete="CASCADE"), nullable=False),
        sa.Column("learner", sa.String(64), nullable=False),
        sa.Column("regrade_of", sa.String(64), nullable=True),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("score_given", sa.Float(), nullable=True),
        sa.Column("score_maximum", sa.Float(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("timestamp", WHEN, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_at", WHEN, nullable=True),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("sent_at", WHEN, nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_lti_passbacks_link_id", "lti_passbacks", ["link_id"])
    op.create_index("ix_lti_passbacks_learner", "lti_passbacks", ["learner"])
    op.create_index("ix_lti_passbacks_state", "lti_passbacks", ["state"])
    op.create_index("ix_lti_passbacks_next_at", "lti_passbacks", ["next_at"])


def downgrade() -> None:
    for table in (
        "lti_passbacks",
        "lti_links",
        "lti_contexts",
        "lti_users",
        "lti_values",
        "lti_keys",
        "lti_deployments",
        "lti_platforms",
    ):
        op.drop_table(table)
