"""Storage seam: the Store protocol and its SQLAlchemy implementation (SQLite by default, any URL)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, delete, event, func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker

from web.tables import EventRow, SubmissionRow

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
UNFINISHED = ("queued", "running")


def now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes; every time we store is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


@dataclass(frozen=True)
class Submission:
    id: str
    learner: str
    problem_id: str
    mode: str
    code: str
    status: str
    created_at: datetime
    finished_at: datetime | None = None
    report: str | None = None  # full Report JSON, bilingual
    file_name: str | None = None


@dataclass(frozen=True)
class StoredEvent:
    id: int
    kind: str
    payload: dict


class Store(Protocol):
    """What the service needs from persistence; a PostgreSQL deployment is the same class on another URL."""

    def create(self, submission: Submission, queued_payload: dict) -> None: ...
    def get(self, submission_id: str) -> Submission | None: ...
    def history(self, learner: str, problem_id: str | None, limit: int) -> list[Submission]: ...
    def unfinished_count(self, learner: str) -> int: ...
    def unfinished_ids(self) -> list[str]: ...
    def start(self, submission_id: str) -> Submission | None: ...
    def add_event(self, submission_id: str, kind: str, payload: dict) -> int: ...
    def finish(self, submission_id: str, report_json: str) -> bool: ...
    def requeue(self, submission_id: str, queued_payload: dict) -> None: ...
    def events_after(self, submission_id: str, after: int) -> list[StoredEvent]: ...


def _row(row: SubmissionRow) -> Submission:
    return Submission(
        id=row.id,
        learner=row.learner,
        problem_id=row.problem_id,
        mode=row.mode,
        code=row.code,
        status=row.status,
        created_at=aware(row.created_at),
        finished_at=aware(row.finished_at),
        report=row.report,
        file_name=row.file_name,
    )


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    # WAL lets the SSE readers run while a worker writes; foreign keys make the cascade real.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (run on every start)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class SqlStore:
    def __init__(self, url: str):
        sqlite = url.startswith("sqlite")
        self.engine = create_engine(url, connect_args={"check_same_thread": False} if sqlite else {})
        if sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        migrate(self.engine)
        self.session = sessionmaker(self.engine, expire_on_commit=False)

    def create(self, submission: Submission, queued_payload: dict) -> None:
        with self.session.begin() as s:
            s.add(
                SubmissionRow(
                    id=submission.id,
                    learner=submission.learner,
                    problem_id=submission.problem_id,
                    mode=submission.mode,
                    code=submission.code,
                    file_name=submission.file_name,
                    status="queued",
                    created_at=submission.created_at,
                    attempts=0,
                )
            )
            s.flush()
            s.add(EventRow(submission_id=submission.id, kind="queued", payload=json.dumps(queued_payload)))

    def get(self, submission_id: str) -> Submission | None:
        with self.session() as s:
            row = s.get(SubmissionRow, submission_id)
            return _row(row) if row else None

    def history(self, learner: str, problem_id: str | None, limit: int) -> list[Submission]:
        query = select(SubmissionRow).where(SubmissionRow.learner == learner)
        if problem_id:
            query = query.where(SubmissionRow.problem_id == problem_id)
        with self.session() as s:
            rows = s.scalars(query.order_by(SubmissionRow.created_at.desc()).limit(limit))
            return [_row(r) for r in rows]

    def unfinished_count(self, learner: str) -> int:
        with self.session() as s:
            return (
                s.scalar(
                    select(func.count())
                    .select_from(SubmissionRow)
                    .where(SubmissionRow.learner == learner, SubmissionRow.status.in_(UNFINISHED))
                )
                or 0
            )

    def unfinished_ids(self) -> list[str]:
        with self.session() as s:
            return list(
                s.scalars(
                    select(SubmissionRow.id)
                    .where(SubmissionRow.status.in_(UNFINISHED))
                    .order_by(SubmissionRow.created_at)
                )
            )

    def start(self, submission_id: str) -> Submission | None:
        """Mark queued -> running; None if it is not queued (already judged)."""
        with self.session.begin() as s:
            changed = s.execute(
                update(SubmissionRow)
                .where(SubmissionRow.id == submission_id, SubmissionRow.status == "queued")
                .values(status="running", started_at=now(), attempts=SubmissionRow.attempts + 1)
            )
            if changed.rowcount != 1:
                return None
            s.add(EventRow(submission_id=submission_id, kind="running", payload="{}"))
            return _row(s.get(SubmissionRow, submission_id))

    def add_event(self, submission_id: str, kind: str, payload: dict) -> int:
        with self.session.begin() as s:
            row = EventRow(submission_id=submission_id, kind=kind, payload=json.dumps(payload, ensure_ascii=False))
            s.add(row)
            s.flush()
            return row.id

    def finish(self, submission_id: str, report_json: str) -> bool:
        """Store the one report and the closing event together; False if it was already finished."""
        with self.session.begin() as s:
            changed = s.execute(
                update(SubmissionRow)
                .where(SubmissionRow.id == submission_id, SubmissionRow.status != "done")
                .values(status="done", finished_at=now(), report=report_json)
            )
            if changed.rowcount != 1:
                return False
            s.add(EventRow(submission_id=submission_id, kind="done", payload="{}"))
            return True

    def requeue(self, submission_id: str, queued_payload: dict) -> None:
        """After a crash: forget the half-told story (new events get new ids) and queue it again."""
        with self.session.begin() as s:
            s.execute(delete(EventRow).where(EventRow.submission_id == submission_id))
            s.execute(
                update(SubmissionRow)
                .where(SubmissionRow.id == submission_id, SubmissionRow.status != "done")
                .values(status="queued", started_at=None)
            )
            s.add(EventRow(submission_id=submission_id, kind="queued", payload=json.dumps(queued_payload)))

    def events_after(self, submission_id: str, after: int) -> list[StoredEvent]:
        with self.session() as s:
            rows = s.scalars(
                select(EventRow)
                .where(EventRow.submission_id == submission_id, EventRow.id > after)
                .order_by(EventRow.id)
            )
            return [StoredEvent(id=r.id, kind=r.kind, payload=json.loads(r.payload)) for r in rows]

    def close(self) -> None:
        self.engine.dispose()
