"""The web service's core: admit a submission (store it, then queue it), resume after a restart, shut down."""

from __future__ import annotations

import secrets
import threading

from judge.errors import JudgeError
from judge.source import check_source
from web.broadcast import Broadcast
from web.config import WebSettings
from web.dispatch import Dispatcher, LocalPool
from web.judging import judge_submission
from web.store import SqlStore, Store, Submission, now


class TooLarge(JudgeError):
    http_status = 413


class LearnerBusy(JudgeError):
    http_status = 429


class Busy(JudgeError):
    """The queue is full: 503 with Retry-After."""

    http_status = 503


class WebService:
    def __init__(self, settings: WebSettings, judge, store: Store | None = None, dispatcher: Dispatcher | None = None):
        self.settings, self.judge = settings, judge
        self.store = store or SqlStore(settings.database())
        self.broadcast = Broadcast()
        self.dispatcher = dispatcher or LocalPool(self._task, settings.workers)
        self._admit = threading.Lock()  # the limit checks and the queueing happen as one step

    def _task(self, submission_id: str) -> None:
        judge_submission(self.store, self._grade, submission_id, self.broadcast.publish)

    def _grade(self, submission: Submission, on_event):
        return self.judge.grade(
            submission.problem_id,
            submission.code,
            submission.mode,
            on_event=on_event,
            display_name=submission.file_name,
        )

    def source_limit(self, problem) -> int:
        return min(problem.meta.limits.source_kib << 10, self.judge.settings.max_source_bytes)

    def submit(self, learner: str, problem_id: str, code: str, mode: str, file_name: str | None = None) -> Submission:
        """Validate, store (before answering), queue. Raises JudgeError subclasses with their HTTP status."""
        problem = self.judge.problem(problem_id)
        limit = self.source_limit(problem)
        size = len(code.encode("utf-8", errors="surrogatepass"))
        if size > limit:
            raise TooLarge(f"the code is {size} bytes; exercise {problem.id} accepts at most {limit} bytes")
        check_source(code, limit)
        with self._admit:
            waiting = self.dispatcher.waiting()
            if waiting >= self.settings.queue_limit:
                raise Busy("the judging queue is full; try again in a few seconds")
            if self.store.unfinished_count(learner) >= self.settings.learner_queue_limit:
                raise LearnerBusy(
                    f"you already have {self.settings.learner_queue_limit} submissions waiting; "
                    "wait for their verdicts first"
                )
            submission = Submission(
                id=secrets.token_urlsafe(18),
                learner=learner,
                problem_id=problem.id,
                mode=mode,
                code=code,
                status="queued",
                created_at=now(),
                file_name=file_name,
            )
            self.store.create(submission, {"position": waiting + 1})  # stored before anyone may judge it
            self.dispatcher.submit(submission.id)
        return submission

    def resume(self) -> int:
        """Queue again what a killed server left queued or running; each still ends with exactly one report."""
        ids = self.store.unfinished_ids()
        for position, submission_id in enumerate(ids, 1):
            self.store.requeue(submission_id, {"position": position})
            self.dispatcher.submit(submission_id)
        return len(ids)

    def close(self) -> None:
        self.dispatcher.close()
        self.store.close()
