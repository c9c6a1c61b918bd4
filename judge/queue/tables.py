"""Database tables of the web service (SQLAlchemy 2 declarative); migrations live in judge/queue/migrations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class SubmissionRow(Base):
    __tablename__ = "submissions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    learner: Mapped[str] = mapped_column(String(64), index=True)
    problem_id: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(8))
    code: Mapped[str] = mapped_column(Text)
    file_name: Mapped[str | None] = mapped_column(String(100), nullable=True)  # what messages call the file
    status: Mapped[str] = mapped_column(String(16), index=True)  # queued | running | done | cancelled
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    report: Mapped[str | None] = mapped_column(Text, nullable=True)  # the full bilingual Report as JSON
    # Set only when the request carried no valid learner cookie: such submissions count per client address.
    address: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    worker: Mapped[str | None] = mapped_column(String(200), nullable=True)  # who is judging it (queue workers)
    dispatched_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)  # sent to a queue

    __table_args__ = (Index("ix_submissions_learner_problem", "learner", "problem_id", "created_at"),)


class AdmissionRow(Base):
    """One row, updated first by every admission: it serialises admissions across all web processes."""

    __tablename__ = "admission"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    admitted: Mapped[int] = mapped_column(Integer)


class EventRow(Base):
    """What happened to a submission, in order; the id is the server-sent event id (never reused)."""

    __tablename__ = "events"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    # queued | running | collected | case_started | case | done | cancelled
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[str] = mapped_column(Text)  # JSON; bilingual where learner text is involved
