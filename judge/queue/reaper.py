"""Re-dispatch what neither the broker nor a worker holds: running past its hard limit plus the visibility
timeout, or stored by a web process that died before it sent the task."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from judge.queue.limits import hard_limit_s
from judge.queue.settings import QueueSettings
from judge.queue.store import Store, Submission, now

log = logging.getLogger("web.queue.reaper")
EVERY_S = 15.0
UNSENT_AFTER_S = 30.0  # a web process sends within milliseconds of storing; older and unsent means it died


@dataclass(frozen=True)
class Overdue:
    stuck: list[Submission]  # running past hard limit + visibility timeout
    unsent: list[str]


def overdue(store: Store, settings: QueueSettings, judge: Any, visibility_timeout_s: float) -> Overdue:
    moment = now()
    shortest = min((hard_limit_s(settings, p) for p in judge.problems()), default=settings.hard_limit_s(60))
    stuck = []
    for submission in store.running_since(moment - timedelta(seconds=shortest + visibility_timeout_s)):
        try:
            hard = hard_limit_s(settings, judge.problem(submission.problem_id))
        except Exception:  # noqa: BLE001 - a vanished problem: the task will store its internal_error
            hard = shortest
        started = submission.started_at or submission.created_at
        if started < moment - timedelta(seconds=hard + visibility_timeout_s):
            stuck.append(submission)
    return Overdue(stuck, store.undispatched(moment - timedelta(seconds=UNSENT_AFTER_S)))


def reap(store: Store, dispatcher: Any, settings: QueueSettings, judge: Any) -> int:
    found = overdue(store, settings, judge, dispatcher.visibility_timeout_s)
    count = 0
    for submission in found.stuck:
        if store.requeue(submission.id, {"position": 1}, attempt=submission.attempts):
            log.warning("re-dispatching %s: running on %s past its hard limit", submission.id, submission.worker)
            dispatcher.submit(submission.id)
            count += 1
    for submission_id in found.unsent:
        log.warning("dispatching %s: stored but never sent (its web process died)", submission_id)
        dispatcher.submit(submission_id)
        count += 1
    return count


class Reaper:
    def __init__(self, store: Store, dispatcher: Any, settings: QueueSettings, judge: Any):
        self.args = (store, dispatcher, settings, judge)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reaper", daemon=True)

    def start(self) -> Reaper:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(EVERY_S):
            try:
                reap(*self.args)
            except Exception:
                log.exception("reaping failed")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
