"""The web service's core: admit a submission (store it, then queue it), resume after a restart, shut down."""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

from judge.errors import JudgeError
from judge.problem.folders import Problem
from judge.queue import progress
from judge.queue.judging import judge_submission
from judge.queue.store import Limits, SqlStore, Store, Submission
from judge.queue.tally import LocalTally, Tally
from judge.report.catalog import say
from judge.report.models import Mode, Report
from judge.source import check_source
from web.broadcast import Broadcast
from web.config import WebSettings
from web.dispatch import Dispatcher, LocalPool
from web.judgelike import JudgeLike


class TooLarge(JudgeError):
    http_status = 413


class LearnerBusy(JudgeError):
    http_status = 429


class NotFound(JudgeError):
    http_status = 404


class NotYours(JudgeError):
    http_status = 403


class Finished(JudgeError):
    """Cancel on a submission that has its verdict (or was cancelled) already."""

    http_status = 409


class Busy(JudgeError):
    """The queue is full: 503 with Retry-After."""

    http_status = 503


class AddressBusy(LearnerBusy):
    """Too many unfinished submissions from one client address without a learner cookie."""


class WebService:
    """judge: the Judge (or a fake: web.judgelike); store and dispatcher default to SQLite and the in-process pool."""

    def __init__(
        self,
        settings: WebSettings,
        judge: JudgeLike,
        store: Store | None = None,
        dispatcher: Dispatcher | None = None,
        tally: Tally | None = None,
        broadcast: Broadcast | None = None,
    ):
        self.settings, self.judge = settings, judge
        self.store: Store = store or SqlStore(settings.database())
        self.broadcast = broadcast or Broadcast()
        self.tally: Tally = tally or LocalTally()
        self.dispatcher: Dispatcher = dispatcher or LocalPool(self._task, settings.workers)
        self.local = isinstance(self.dispatcher, LocalPool)

    def _task(self, submission_id: str, cancel: threading.Event | None = None) -> None:
        started = time.monotonic()
        publish = self.broadcast.publish
        report = judge_submission(self.store, self._grade, submission_id, publish, cancel, on_stored=self._share)
        stored = self.store.get(submission_id) if report is not None else None
        if report is not None and stored is not None and stored.finished_at is not None:
            latency = (stored.finished_at - stored.created_at).total_seconds()
            self.tally.judged(stored.problem_id, report.verdict.value, latency, time.monotonic() - started)

    def _share(self, submission: Submission, report: Report) -> None:
        """The verdict where the terminal's --list reads it, before the page's stream says "done": a learner who
        looks at the terminal after the page finds it there."""
        if self.settings.shares_progress():
            whole = "skipped" not in report.tiers.values()
            progress.record(
                self.settings.data_dir, "page", submission.problem_id, report.verdict.value, submission.mode, whole
            )

    def _grade(self, submission: Submission, on_event: Any, cancel: threading.Event | None = None) -> Any:
        extra = {"cancel": cancel} if cancel is not None else {}  # fakes in tests may not take it
        return self.judge.grade(
            submission.problem_id,
            submission.code,
            submission.mode,
            on_event=on_event,
            display_name=submission.file_name,
            **extra,
        )

    def source_limit(self, problem: Problem) -> int:
        return min(problem.meta.limits.source_kib << 10, self.judge.settings.max_source_bytes)

    def limits(self) -> Limits:
        s = self.settings
        return Limits(queue=s.queue_limit, learner=s.learner_queue_limit, address=s.address_queue_limit)

    def submit(
        self,
        learner: str,
        problem_id: str,
        code: str,
        mode: Mode,
        file_name: str | None = None,
        address: str | None = None,
    ) -> Submission:
        """Validate, store (before answering), queue. Raises JudgeError subclasses with their HTTP status.

        address: the client's address when the request carried no valid learner cookie (else None): such
        submissions also count against the per-address limit. The limits are counted by the store in the
        transaction that inserts, so every web process in front of one database enforces them together."""
        problem = self.judge.problem(problem_id)
        limit = self.source_limit(problem)
        size = len(code.encode("utf-8", errors="surrogatepass"))
        if size > limit:
            raise TooLarge(say("web.too_large", size=size, id=problem.id, limit=limit))
        check_source(code, limit)
        submission = Submission.queued(learner, problem.id, mode, code, file_name=file_name, address=address)
        admission = self.store.admit(submission, self.limits())  # stored before anyone may judge it
        if admission.refused == "queue":
            raise Busy(say("web.queue_full"))
        if admission.refused == "learner":
            raise LearnerBusy(say("web.learner_busy", limit=self.settings.learner_queue_limit))
        if admission.refused == "address":
            raise AddressBusy(say("web.address_busy", limit=self.settings.address_queue_limit))
        self.dispatcher.submit(submission.id)
        return submission

    def cancel(self, learner: str, submission_id: str) -> None:
        """Stop a waiting or running submission of this learner: the store says `cancelled` first (so no report
        can land after it), then the dispatcher drops it from the queue or stops its judgement."""
        submission = self.store.get(submission_id)
        if submission is None:
            raise NotFound(say("web.cancel.unknown"))
        if not secrets.compare_digest(submission.learner, learner):
            raise NotYours(say("web.cancel.not_yours"))
        if not self.store.cancel(submission_id):
            raise Finished(say("web.cancel.finished"))
        self.dispatcher.cancel(submission_id)
        self.broadcast.publish(submission_id)

    def resume(self) -> int:
        """In-process pool only: queue again what a killed server left queued or running.

        With a queue, nothing is re-dispatched here: the broker holds what is waiting, late acks bring back
        what a dead worker held, and the workers' reaper re-sends what neither holds."""
        if not self.local:
            return 0
        ids = self.store.unfinished_ids()
        for position, submission_id in enumerate(ids, 1):
            self.store.requeue(submission_id, {"position": position})
            self.dispatcher.submit(submission_id)
        return len(ids)

    def close(self) -> None:
        self.dispatcher.close()
        self.store.close()
