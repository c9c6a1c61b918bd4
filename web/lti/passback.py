"""The durable passback outbox: each judged LTI Submit becomes one AGS score, posted once, retried until it lands.

A row is made when the submission is stored (state `waiting`); this loop, in every web process, settles rows
whose judgement has ended (whoever judged it: the in-process pool or a queue worker) and posts the due ones.
A sender claims a row by a conditional UPDATE (one sender at a time, whichever process), so one judgement is
posted once; a 5xx, a timeout or a refused connection is tried again after a backoff with jitter; a 4xx is a
permanent failure, kept with the platform's answer for the instructor. Everything is in the database: a
restarted web process or worker picks up where the last one stopped."""

from __future__ import annotations

import json
import logging
import os
import random
import socket
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService, TAssignmentsGradersData
from pylti1p3.exception import LtiServiceException
from pylti1p3.grade import Grade
from sqlalchemy import func, select, update

from judge.queue.store import aware, now
from judge.queue.tables import SubmissionRow
from judge.report.catalog import say
from judge.report.models import Report, Verdict
from web.lti.settings import LtiSettings
from web.lti.tables import ContextRow, LinkRow, PassbackRow, UserRow
from web.lti.tool import LtiTool

log = logging.getLogger("web.lti")
LEASE = timedelta(seconds=120)  # a sender that died mid-post gives its row back after this
READ_LINEITEM = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
)
DEFAULT_MAXIMUM = 100.0
STATES = ("waiting", "pending", "sent", "failed", "kept", "none", "nolink")
RETRY_STATUSES = (401, 408, 425, 429)  # worth another try: a token to renew, or the platform's own pacing


def enqueue(tool: LtiTool, submission_id: str, link_id: int, learner: str, regrade_of: str | None = None) -> None:
    with tool.db.session.begin() as s:
        s.add(
            PassbackRow(
                submission_id=submission_id,
                link_id=link_id,
                learner=learner,
                regrade_of=regrade_of,
                state="waiting",
                comment="",
                attempts=0,
                last_error="",
                created_at=now(),
            )
        )


def comment_of(report: Report) -> str:
    """The verdict's one-line summary, in both languages (the platform does not say which its reader uses)."""
    text = say(
        "lti.comment",
        verdict=say(f"verdict.{report.verdict.value}"),
        passed=report.passed,
        total=report.total,
        message=report.message,
    )
    return f"{text.en}\n{text.zh}"[:1000]


@dataclass(frozen=True)
class Due:
    """One claimed row and what posting it needs."""

    submission_id: str
    attempts: int
    score: float
    comment: str
    timestamp: datetime
    issuer: str
    client_id: str
    sub: str
    lineitem: str
    scopes: list[str]


class Outbox:
    def __init__(self, tool: LtiTool, settings: LtiSettings | None = None):
        self.tool = tool
        self.settings = settings or tool.settings
        self.me = f"{socket.gethostname()}:{os.getpid()}"[:64]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the loop --

    def start(self) -> Outbox:
        self._thread = threading.Thread(target=self._run, name="lti-passback", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=15)

    def _run(self) -> None:
        sweeps = 0
        while not self._stop.is_set():
            try:
                self.step()
                sweeps += 1
                if sweeps % 600 == 0:
                    self.tool.db.sweep()
            except Exception:
                log.exception("the LTI passback loop failed a round; it goes on")
            self._stop.wait(self.settings.poll_s)

    def step(self) -> int:
        """One round: settle what was judged, post what is due. Returns how many posts were tried."""
        self.settle()
        tried = 0
        while not self._stop.is_set():
            due = self.claim()
            if due is None:
                return tried
            self.send(due)
            tried += 1
        return tried

    # -- waiting -> pending | kept | none | nolink --

    def settle(self) -> None:
        with self.tool.db.session() as s:
            rows = s.execute(
                select(PassbackRow.submission_id, SubmissionRow.status)
                .join(SubmissionRow, SubmissionRow.id == PassbackRow.submission_id)
                .where(PassbackRow.state == "waiting", SubmissionRow.status.in_(("done", "cancelled")))
            ).all()
        for submission_id, _ in rows:
            self._settle_one(submission_id)

    def _settle_one(self, submission_id: str) -> None:
        with self.tool.db.session.begin() as s:
            row = s.get(PassbackRow, submission_id)
            sub = s.get(SubmissionRow, submission_id)
            if row is None or sub is None or row.state != "waiting":
                return
            link = s.get(LinkRow, row.link_id)
            report = Report.model_validate_json(sub.report) if sub.report else None
            if report is None or report.verdict == Verdict.internal_error:
                row.state, row.last_error = "none", ("cancelled" if report is None else "the judge's own fault")
                return
            row.score, row.comment = report.score, comment_of(report)
            row.timestamp = aware(sub.finished_at) or now()
            if link is None or not link.lineitem:
                row.state = "nolink"
                return
            row.state, row.next_at = self._decide(s, row, link), now()

    @staticmethod
    def _decide(s: Any, row: PassbackRow, link: LinkRow) -> str:
        """pending, or why not: best policy keeps a better score that stands; a regrade sends only a change."""
        if row.regrade_of is not None:
            before = s.get(PassbackRow, row.regrade_of)
            return "none" if before is not None and before.score == row.score else "pending"
        if link.score_policy != "best":
            return "pending"
        best = s.scalar(
            select(func.max(PassbackRow.score)).where(
                PassbackRow.link_id == row.link_id,
                PassbackRow.learner == row.learner,
                PassbackRow.state.in_(("pending", "sent")),
                PassbackRow.submission_id != row.submission_id,
            )
        )
        return "kept" if best is not None and row.score is not None and row.score <= best else "pending"

    # -- pending -> sent | failed | pending (later) --

    def claim(self) -> Due | None:
        moment = now()
        with self.tool.db.session() as s:
            candidates = s.scalars(
                select(PassbackRow.submission_id)
                .where(PassbackRow.state == "pending", PassbackRow.next_at <= moment)
                .order_by(PassbackRow.created_at)
                .limit(20)
            ).all()
        for submission_id in candidates:
            with self.tool.db.session.begin() as s:
                taken = s.execute(
                    update(PassbackRow)
                    .where(
                        PassbackRow.submission_id == submission_id,
                        PassbackRow.state == "pending",
                        PassbackRow.next_at <= moment,
                    )
                    .values(claimed_by=self.me, next_at=moment + LEASE, attempts=PassbackRow.attempts + 1)
                )
                if getattr(taken, "rowcount", 0) != 1:
                    continue  # another process took it
                return self._due(s, submission_id)
        return None

    def _due(self, s: Any, submission_id: str) -> Due | None:
        row = s.get(PassbackRow, submission_id)
        link = s.get(LinkRow, row.link_id)
        context = s.get(ContextRow, link.context_pk)
        user = s.get(UserRow, row.learner)
        return Due(
            submission_id=submission_id,
            attempts=row.attempts,
            score=row.score or 0.0,
            comment=row.comment,
            timestamp=aware(row.timestamp) or now(),
            issuer=context.issuer,
            client_id=context.client_id,
            sub=user.sub if user is not None else "",
            lineitem=link.lineitem or "",
            scopes=list(json.loads(link.ags_scopes)),
        )

    def send(self, due: Due | None) -> None:
        if due is None:
            return
        connector = self.tool.connector(due.issuer, due.client_id)
        if connector is None:
            self._finish(due, "failed", "the platform is no longer registered (judge lti platforms)")
            return
        claim = cast(TAssignmentsGradersData, {"scope": due.scopes, "lineitem": due.lineitem})
        service = AssignmentsGradesService(connector, claim)
        try:
            maximum = self._maximum(service, due)
            grade = (
                Grade()
                .set_score_given(round(due.score * maximum, 4))
                .set_score_maximum(maximum)
                .set_activity_progress("Completed")
                .set_grading_progress("FullyGraded")
                .set_timestamp(due.timestamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"))
                .set_user_id(due.sub)
                .set_comment(due.comment)
            )
            service.put_grade(grade)
        except LtiServiceException as exc:
            status = exc.response.status_code
            if status == 401:
                connector.forget_tokens()
            if 400 <= status < 500 and status not in RETRY_STATUSES:
                self._finish(due, "failed", f"HTTP {status}: {exc.response.text[:500]}")
            else:
                self._later(due, f"HTTP {status}: {exc.response.text[:300]}")
            return
        except (requests.RequestException, ValueError, KeyError) as exc:
            self._later(due, f"{type(exc).__name__}: {exc}"[:300])
            return
        self._finish(due, "sent", "", score_given=round(due.score * maximum, 4), score_maximum=maximum)

    @staticmethod
    def _maximum(service: AssignmentsGradesService, due: Due) -> float:
        """The line item's scoreMaximum, when the platform lets the tool read it; else the default 100."""
        if not any(scope in due.scopes for scope in READ_LINEITEM):
            return DEFAULT_MAXIMUM
        item = service.get_lineitem(due.lineitem)
        return float(item.get_score_maximum() or DEFAULT_MAXIMUM)

    def _finish(self, due: Due, state: str, error: str, **values: Any) -> None:
        with self.tool.db.session.begin() as s:
            s.execute(
                update(PassbackRow)
                .where(PassbackRow.submission_id == due.submission_id, PassbackRow.claimed_by == self.me)
                .values(
                    state=state,
                    last_error=error,
                    claimed_by=None,
                    next_at=None,
                    sent_at=now() if state == "sent" else None,
                    **values,
                )
            )
        if state == "failed":
            log.warning("passback of %s refused: %s", due.submission_id, error)

    def _later(self, due: Due, error: str) -> None:
        """Back off: base * 2^(tries-1), capped, times a random factor in [0.5, 1] so a class's retries spread."""
        delay = min(self.settings.retry_cap_s, self.settings.retry_base_s * 2 ** min(due.attempts - 1, 20))
        delay *= random.uniform(0.5, 1.0)  # jitter: a class's retries spread out
        with self.tool.db.session.begin() as s:
            s.execute(
                update(PassbackRow)
                .where(PassbackRow.submission_id == due.submission_id, PassbackRow.claimed_by == self.me)
                .values(last_error=error, claimed_by=None, next_at=now() + timedelta(seconds=delay))
            )
        log.info("passback of %s: %s; next try in %.1f s", due.submission_id, error, delay)


def counts(tool: LtiTool, context_pk: int | None = None) -> dict[str, int]:
    """Rows by state: all of them (/metrics), or one course's (its course view)."""
    query = select(PassbackRow.state, func.count()).group_by(PassbackRow.state)
    if context_pk is not None:
        query = query.where(PassbackRow.link_id.in_(select(LinkRow.id).where(LinkRow.context_pk == context_pk)))
    with tool.db.session() as s:
        found = dict(s.execute(query).all())
    return {state: int(found.get(state, 0)) for state in STATES}
