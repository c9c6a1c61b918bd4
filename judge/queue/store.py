"""Storage seam: the Store protocol and its SQLAlchemy implementation (SQLite by default, PostgreSQL, any URL).

The store is the truth about every submission's state machine, so that any number of web processes and
queue workers, crashing and redelivering in any order, still end each submission with exactly one report:

    queued --start--> running --finish--> done
       |                 |  \\--start (takeover: the holder is dead or past its hard limit)--> running
       |                 |  \\--requeue (restart, reaper)--> queued
       \\----cancel------+----cancel--> cancelled

Every start counts an attempt; events and reports of a superseded attempt are refused. When an attempt's story
is dropped (a requeue or a takeover after a start), the new story says so: `queued`, then `restarted`, so that a
page that drew the first attempt's cases clears them.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol, cast

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, delete, event, func, select, update
from sqlalchemy.engine import Connection, CursorResult, Engine, Result
from sqlalchemy.orm import Session, sessionmaker

from judge.errors import JudgeError
from judge.queue.tables import AdmissionRow, EventRow, SubmissionRow
from judge.report.models import Mode

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Where a submission is in the queue: the one list the store, the API's bodies and the page share.
QueueStatus = Literal["queued", "running", "done", "cancelled"]
UNFINISHED: tuple[QueueStatus, ...] = ("queued", "running")
FINISHED: tuple[QueueStatus, ...] = ("done", "cancelled")
UPGRADE_COMMAND = "judge db upgrade"

Payload = dict[str, Any]
# takeover(holder, started_at) -> may a redelivered task judge again what `holder` started at `started_at`?
Takeover = Callable[[str | None, datetime], bool]


def now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes; every time we store is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


class Unmigrated(JudgeError):
    """The database's schema is not the newest revision (only the SQLite default migrates itself)."""


@dataclass(frozen=True)
class Submission:
    id: str
    learner: str
    problem_id: str
    mode: Mode
    code: str
    status: QueueStatus
    created_at: datetime
    finished_at: datetime | None = None
    report: str | None = None  # full Report JSON, bilingual
    file_name: str | None = None
    attempts: int = 0
    address: str | None = None
    worker: str | None = None
    started_at: datetime | None = None

    @classmethod
    def queued(cls, learner: str, problem_id: str, mode: Mode, code: str, **more: Any) -> Submission:
        """A new submission waiting for its verdict, under a fresh id (more: file_name, address)."""
        return cls(secrets.token_urlsafe(18), learner, problem_id, mode, code, "queued", now(), **more)


@dataclass(frozen=True)
class StoredEvent:
    id: int
    kind: str
    payload: Payload


@dataclass(frozen=True)
class Limits:
    """Admission limits, checked in the same transaction as the insert."""

    queue: int
    learner: int
    address: int


@dataclass(frozen=True)
class Admission:
    """refused: None when stored, else which limit refused it ('queue', 'learner', 'address')."""

    refused: str | None
    position: int = 0


@dataclass(frozen=True)
class Counts:
    by_status: dict[str, int] = field(default_factory=dict)
    oldest_queued: datetime | None = None


class Store(Protocol):
    """What the service and the workers need from persistence."""

    def admit(self, submission: Submission, limits: Limits) -> Admission: ...
    def create(self, submission: Submission, queued_payload: Payload) -> None: ...
    def get(self, submission_id: str) -> Submission | None: ...
    def history(self, learner: str, problem_id: str | None, limit: int) -> list[Submission]: ...
    def unfinished_count(self, learner: str) -> int: ...
    def unfinished_ids(self) -> list[str]: ...
    def start(
        self, submission_id: str, worker: str | None = None, takeover: Takeover | None = None
    ) -> Submission | None: ...
    def add_event(self, submission_id: str, kind: str, payload: Payload, attempt: int | None = None) -> int | None: ...
    def finish(self, submission_id: str, report_json: str, attempt: int | None = None) -> bool: ...
    def cancel(self, submission_id: str) -> bool: ...
    def requeue(self, submission_id: str, queued_payload: Payload, attempt: int | None = None) -> bool: ...
    def mark_dispatched(self, submission_id: str) -> None: ...
    def events_after(self, submission_id: str, after: int) -> list[StoredEvent]: ...
    def counts(self) -> Counts: ...
    def running_since(self, before: datetime) -> list[Submission]: ...
    def running_held_by(self, worker: str) -> list[Submission]: ...
    def waiting_since(self, before: datetime) -> list[str]: ...
    def ping(self) -> None: ...
    def close(self) -> None: ...


def _row(row: SubmissionRow) -> Submission:
    created = aware(row.created_at)
    assert created is not None
    return Submission(
        id=row.id,
        learner=row.learner,
        problem_id=row.problem_id,
        mode=cast(Mode, row.mode),  # the column holds what SubmissionIn's Mode allowed
        code=row.code,
        status=cast(QueueStatus, row.status),  # the column holds only these (migrations 0001, 0002)
        created_at=created,
        finished_at=aware(row.finished_at),
        report=row.report,
        file_name=row.file_name,
        attempts=row.attempts,
        address=row.address,
        worker=row.worker,
        started_at=aware(row.started_at),
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets the SSE readers run while a worker writes; foreign keys make the cascade real.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (`judge db upgrade`; the SQLite default on every start)."""
    config = _config()
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:  # a batch migration rebuilds a table: its DROP must not fire the events' ON DELETE CASCADE
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()  # the pragma is a no-op inside a transaction
        with connection.begin():
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()


def revisions(engine: Engine) -> tuple[str | None, str | None]:
    """(the database's revision, the newest one in judge/queue/migrations)."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
    return current, head


def require_migrated(engine: Engine) -> None:
    current, head = revisions(engine)
    if current != head:
        raise Unmigrated(
            f"the database is at schema revision {current or 'none'}, this version needs {head}: "
            f"run `{UPGRADE_COMMAND}` once (with the same PRACTICE_DATABASE_URL) before starting any process"
        )


def make_engine(url: str) -> Engine:
    sqlite = url.startswith("sqlite")
    if sqlite:
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


class SqlStore:
    """migrate: None = only SQLite migrates itself; other databases must already be at the head revision."""

    def __init__(self, url: str, migrate_schema: bool | None = None):
        self.url = url
        self.engine = make_engine(url)
        if migrate_schema is None:
            migrate_schema = url.startswith("sqlite")
        if migrate_schema:
            migrate(self.engine)
        else:
            require_migrated(self.engine)
        self.session = sessionmaker(self.engine, expire_on_commit=False)

    # -- admission and creation --

    def admit(self, submission: Submission, limits: Limits) -> Admission:
        """Count the limits and insert in one transaction, serialised on the admission row across processes."""
        with self.session.begin() as s:
            # First statement: takes the row lock (PostgreSQL) or the write lock (SQLite) until commit.
            s.execute(update(AdmissionRow).where(AdmissionRow.id == 1).values(admitted=AdmissionRow.admitted + 1))
            waiting = self._count(s, SubmissionRow.status == "queued")
            if waiting >= limits.queue:
                s.rollback()
                return Admission("queue")
            if self._count(s, SubmissionRow.learner == submission.learner, unfinished=True) >= limits.learner:
                s.rollback()
                return Admission("learner")
            if submission.address is not None and (
                self._count(s, SubmissionRow.address == submission.address, unfinished=True) >= limits.address
            ):
                s.rollback()
                return Admission("address")
            self._insert(s, submission, {"position": waiting + 1})
            return Admission(None, waiting + 1)

    @staticmethod
    def _count(s: Session, condition: Any, unfinished: bool = False) -> int:
        query = select(func.count()).select_from(SubmissionRow).where(condition)
        if unfinished:
            query = query.where(SubmissionRow.status.in_(UNFINISHED))
        return s.scalar(query) or 0

    def _insert(self, s: Session, submission: Submission, queued_payload: Payload) -> None:
        s.add(
            SubmissionRow(
                id=submission.id,
                learner=submission.learner,
                problem_id=submission.problem_id,
                mode=submission.mode,
                code=submission.code,
                file_name=submission.file_name,
                address=submission.address,
                status="queued",
                created_at=submission.created_at,
                attempts=0,
            )
        )
        s.flush()
        s.add(EventRow(submission_id=submission.id, kind="queued", payload=json.dumps(queued_payload)))

    def create(self, submission: Submission, queued_payload: Payload) -> None:
        with self.session.begin() as s:
            self._insert(s, submission, queued_payload)

    # -- reading --

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
            return self._count(s, SubmissionRow.learner == learner, unfinished=True)

    def unfinished_ids(self) -> list[str]:
        with self.session() as s:
            return list(
                s.scalars(
                    select(SubmissionRow.id)
                    .where(SubmissionRow.status.in_(UNFINISHED))
                    .order_by(SubmissionRow.created_at)
                )
            )

    def events_after(self, submission_id: str, after: int) -> list[StoredEvent]:
        with self.session() as s:
            rows = s.scalars(
                select(EventRow)
                .where(EventRow.submission_id == submission_id, EventRow.id > after)
                .order_by(EventRow.id)
            )
            return [StoredEvent(id=r.id, kind=r.kind, payload=json.loads(r.payload)) for r in rows]

    def counts(self) -> Counts:
        with self.session() as s:
            grouped = s.execute(select(SubmissionRow.status, func.count()).group_by(SubmissionRow.status))
            by_status = {status: int(n) for status, n in grouped}
            oldest = s.scalar(select(func.min(SubmissionRow.created_at)).where(SubmissionRow.status == "queued"))
            return Counts(by_status, aware(oldest))

    def running_since(self, before: datetime) -> list[Submission]:
        """Submissions started before `before` and still running (the reaper's candidates)."""
        with self.session() as s:
            rows = s.scalars(
                select(SubmissionRow).where(SubmissionRow.status == "running", SubmissionRow.started_at < before)
            )
            return [_row(r) for r in rows]

    def running_held_by(self, worker: str) -> list[Submission]:
        """Submissions running under a worker's name (its earlier life's, when that worker starts again)."""
        with self.session() as s:
            rows = s.scalars(
                select(SubmissionRow).where(SubmissionRow.status == "running", SubmissionRow.worker == worker)
            )
            return [_row(r) for r in rows]

    def waiting_since(self, before: datetime) -> list[str]:
        """Queued, and last handed to the queue (or stored, if never handed) before `before`: sent or not, nothing
        took them since. A message the broker lost, or never got, leaves exactly such a row."""
        with self.session() as s:
            return list(
                s.scalars(
                    select(SubmissionRow.id)
                    .where(
                        SubmissionRow.status == "queued",
                        func.coalesce(SubmissionRow.dispatched_at, SubmissionRow.created_at) < before,
                    )
                    .order_by(SubmissionRow.created_at)
                )
            )

    def ping(self) -> None:
        with self.engine.connect() as connection:
            require_migrated_on(connection)

    # -- the state machine --

    def start(
        self, submission_id: str, worker: str | None = None, takeover: Takeover | None = None
    ) -> Submission | None:
        """queued -> running (a new attempt); running -> running only if takeover(holder, started_at) says so.

        None: nothing to judge (finished, cancelled, unknown, or a live holder still judging it)."""
        with self.session.begin() as s:
            row = s.get(SubmissionRow, submission_id)
            if row is None or row.status in FINISHED:
                return None
            if row.status == "running":
                started = aware(row.started_at) or aware(row.created_at)
                assert started is not None
                if takeover is None or not takeover(row.worker, started):
                    return None
            seen = row.attempts
            changed = s.execute(
                update(SubmissionRow)
                .where(
                    SubmissionRow.id == submission_id,
                    SubmissionRow.status == row.status,
                    SubmissionRow.attempts == seen,
                )
                .values(status="running", started_at=now(), attempts=seen + 1, worker=worker)
                .execution_options(synchronize_session=False)
            )
            if _rows(changed) != 1:
                return None  # someone else started or finished it meanwhile
            if row.status == "running":  # a takeover: the dead attempt's half-told story is dropped
                self._restart_story(s, submission_id, seen, {"position": 1})
            s.add(EventRow(submission_id=submission_id, kind="running", payload="{}"))
            s.flush()
            s.expire_all()
            fresh = s.get(SubmissionRow, submission_id)
            assert fresh is not None
            return _row(fresh)

    def _current(self, s: Session, submission_id: str, attempt: int | None) -> bool:
        condition = [SubmissionRow.id == submission_id, SubmissionRow.status == "running"]
        if attempt is not None:
            condition.append(SubmissionRow.attempts == attempt)
        return s.scalar(select(func.count()).select_from(SubmissionRow).where(*condition)) == 1

    def add_event(self, submission_id: str, kind: str, payload: Payload, attempt: int | None = None) -> int | None:
        """Store an event of the running attempt; None (dropped) if that attempt was superseded or finished."""
        with self.session.begin() as s:
            if attempt is not None and not self._current(s, submission_id, attempt):
                return None
            row = EventRow(submission_id=submission_id, kind=kind, payload=json.dumps(payload, ensure_ascii=False))
            s.add(row)
            s.flush()
            return row.id

    def finish(self, submission_id: str, report_json: str, attempt: int | None = None) -> bool:
        """Store the one report and the closing event together; False if finished, cancelled or superseded.

        A superseded attempt that finishes first still counts (its judgement is as good); one that comes after
        the report is refused. attempt=None: whichever attempt (the in-process pool has only one)."""
        del attempt  # the first report wins whichever attempt sends it: see the docstring
        with self.session.begin() as s:
            changed = s.execute(
                update(SubmissionRow)
                .where(SubmissionRow.id == submission_id, SubmissionRow.status.in_(UNFINISHED))
                .values(status="done", finished_at=now(), report=report_json)
            )
            if _rows(changed) != 1:
                return False
            s.add(EventRow(submission_id=submission_id, kind="done", payload="{}"))
            return True

    def cancel(self, submission_id: str) -> bool:
        """queued or running -> cancelled, with its closing `cancelled` event; False if it had already ended."""
        with self.session.begin() as s:
            changed = s.execute(
                update(SubmissionRow)
                .where(SubmissionRow.id == submission_id, SubmissionRow.status.in_(UNFINISHED))
                .values(status="cancelled", finished_at=now())
            )
            if _rows(changed) != 1:
                return False
            s.add(EventRow(submission_id=submission_id, kind="cancelled", payload="{}"))
            return True

    def requeue(self, submission_id: str, queued_payload: Payload, attempt: int | None = None) -> bool:
        """After a crash: forget the half-told story (new events get new ids) and queue it again.

        attempt: only if the attempt seen by the caller (the reaper) is still the current one."""
        with self.session.begin() as s:
            condition = [SubmissionRow.id == submission_id, SubmissionRow.status.in_(UNFINISHED)]
            if attempt is not None:
                condition.append(SubmissionRow.attempts == attempt)
            changed = s.execute(
                update(SubmissionRow).where(*condition).values(status="queued", started_at=None, dispatched_at=None)
            )
            if _rows(changed) != 1:
                return False
            attempts = s.scalar(select(SubmissionRow.attempts).where(SubmissionRow.id == submission_id)) or 0
            self._restart_story(s, submission_id, attempts, queued_payload)
            return True

    @staticmethod
    def _restart_story(s: Session, submission_id: str, attempts: int, queued_payload: Payload) -> None:
        """Drop the events told so far and queue it again; a story that had begun (an attempt started) says that it
        begins again: `restarted`, after `queued` (a page that drew the first attempt's cases clears them then)."""
        s.execute(delete(EventRow).where(EventRow.submission_id == submission_id))
        s.add(EventRow(submission_id=submission_id, kind="queued", payload=json.dumps(queued_payload)))
        if attempts:
            s.add(EventRow(submission_id=submission_id, kind="restarted", payload=json.dumps({"attempt": attempts})))

    def mark_dispatched(self, submission_id: str) -> None:
        with self.session.begin() as s:
            s.execute(update(SubmissionRow).where(SubmissionRow.id == submission_id).values(dispatched_at=now()))

    def close(self) -> None:
        self.engine.dispose()


def require_migrated_on(connection: Connection) -> None:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    current = MigrationContext.configure(connection).get_current_revision()
    if current != head:
        raise Unmigrated(f"the database is at schema revision {current or 'none'}; run `{UPGRADE_COMMAND}`")


def _rows(result: Result[Any]) -> int:
    """How many rows an UPDATE changed (execute() returns a CursorResult for one; its type says Result)."""
    return cast(CursorResult[Any], result).rowcount
