"""`judge grade ... --queue`: a judge whose grade() sends each judgement to the queue workers and waits for it."""

from __future__ import annotations

import threading
from typing import Any

from judge.problem.folders import ProblemSet
from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.settings import QueueSettings
from judge.queue.store import FINISHED, SqlStore, Submission
from judge.report.models import Mode, Report, internal_error
from judge.settings import Settings
from judge.source import check_source
from judge.versions import judge_versions

BATCH_LEARNER = "batch"
POLL_S = 0.5


class QueueJudge:
    """Judge-like for judge.batch: problems from the local folder, judgements on the workers, the same reports."""

    def __init__(self, settings: Settings, web: QueueSettings):
        self.settings = settings
        self.problem_set = ProblemSet(settings.problems_dir)
        self.store = SqlStore(web.database())
        self.dispatcher = CeleryDispatcher(web, self.store, self)
        self._closed = threading.Event()

    def problems(self) -> list[Any]:
        return self.problem_set.all()

    def problem(self, problem_id: str) -> Any:
        return self.problem_set.get(problem_id)

    def versions(self) -> dict[str, str]:
        return judge_versions()

    def grade(
        self, problem_id: str, source_code: str | bytes, mode: Mode = "submit", on_event: Any = None, **kw: Any
    ) -> Report:
        problem = self.problem(problem_id)
        source = check_source(source_code, min(problem.meta.limits.source_kib << 10, self.settings.max_source_bytes))
        submission = Submission.queued(BATCH_LEARNER, problem.id, mode, source, file_name=kw.get("display_name"))
        self.store.create(submission, {"position": 0})
        self.dispatcher.submit(submission.id)
        while not self._closed.wait(POLL_S):  # the store is the truth; a poll per half second is plenty here
            stored = self.store.get(submission.id)
            if stored is not None and stored.status == "done" and stored.report:
                return Report.model_validate_json(stored.report)
            if stored is None or stored.status in FINISHED:  # cancelled (or gone) on the queue's side: no report
                why = f"the queued judgement {submission.id} ended {stored.status if stored else 'missing'}"
                return internal_error(problem.id, mode, why, "queue")  # retryable: batch judges it once more
        raise KeyboardInterrupt

    def close(self) -> None:
        self._closed.set()
        self.dispatcher.close()
        self.store.close()

    def __enter__(self) -> QueueJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def queue_judge(settings: Settings) -> QueueJudge | None:
    """None when PRACTICE_QUEUE_URL is not set."""
    web = QueueSettings()
    return QueueJudge(settings, web) if web.queue_url else None
