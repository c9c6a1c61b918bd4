"""The LTI tool's tables (SQLAlchemy, in the service's database); judge/queue/migrations 0004 makes them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from judge.queue.tables import Base


class PlatformRow(Base):
    """One registration: a platform (issuer) and the client id it gave this tool."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(Text)
    auth_token_url: Mapped[str] = mapped_column(Text)
    key_set_url: Mapped[str] = mapped_column(Text)
    auth_audience: Mapped[str | None] = mapped_column(Text, nullable=True)  # when the token URL is not the aud
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DeploymentRow(Base):
    __tablename__ = "lti_deployments"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"), index=True)
    deployment_id: Mapped[str] = mapped_column(String(255))


class KeyRow(Base):
    """The tool's RSA keys: the newest unretired one signs; a retired one stays in the JWKS until `drop_at`."""

    __tablename__ = "lti_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_jwk: Mapped[str] = mapped_column(Text)  # JSON
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    drop_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ValueRow(Base):
    """PyLTI1p3's launch-data storage: OIDC states and nonces (each used once), launch data, expiring."""

    __tablename__ = "lti_values"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str] = mapped_column(Text)  # JSON
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class UserRow(Base):
    """A person of one course (issuer, deployment, context): `learner` is what their submissions are stored under."""

    __tablename__ = "lti_users"
    __table_args__ = (UniqueConstraint("issuer", "deployment_id", "context_id", "sub", name="uq_lti_users"),)

    learner: Mapped[str] = mapped_column(String(64), primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_id: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255), index=True)
    sub: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255), default="")
    email: Mapped[str] = mapped_column(String(255), default="")
    roles: Mapped[str] = mapped_column(Text, default="[]")  # JSON list of role URIs
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ContextRow(Base):
    """A course: its title and its NRPS roster URL, as the latest launch into it said."""

    __tablename__ = "lti_contexts"
    __table_args__ = (UniqueConstraint("issuer", "deployment_id", "context_id", name="uq_lti_contexts"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_id: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")
    memberships_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LinkRow(Base):
    """A resource link of a course: which exercise it opens and where its scores go (AGS line item)."""

    __tablename__ = "lti_links"
    __table_args__ = (UniqueConstraint("context_pk", "resource_link_id", name="uq_lti_links"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    context_pk: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id", ondelete="CASCADE"), index=True)
    resource_link_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")
    exercise: Mapped[str] = mapped_column(String(16))
    score_policy: Mapped[str] = mapped_column(String(8), default="best")  # best | latest
    lineitem: Mapped[str | None] = mapped_column(Text, nullable=True)  # the AGS line item URL, if the link has one
    ags_scopes: Mapped[str] = mapped_column(Text, default="[]")  # JSON: the scopes the platform granted
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PassbackRow(Base):
    """The durable outbox: one row per LTI submission, one score posted at most once per judgement.

    waiting (not judged yet) -> pending (a score to post; retried with backoff) -> sent | failed (a 4xx: the
    platform's answer is kept) | kept (best policy: a better score stands) | none (cancelled, nothing to post)."""

    __tablename__ = "lti_passbacks"

    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_links.id", ondelete="CASCADE"), index=True)
    learner: Mapped[str] = mapped_column(String(64), index=True)
    regrade_of: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the submission a regrade re-judged
    state: Mapped[str] = mapped_column(String(8), index=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)  # the report's weighted score, 0..1
    score_given: Mapped[float | None] = mapped_column(Float, nullable=True)
    score_maximum: Mapped[float | None] = mapped_column(Float, nullable=True)
    comment: Mapped[str] = mapped_column(Text, default="")
    timestamp: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)  # fixed once, resent
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the sender holding it, until next_at
    last_error: Mapped[str] = mapped_column(Text, default="")
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
