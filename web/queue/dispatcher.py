"""The Celery backend of the Dispatcher seam: route by the problem's device, send by id, revoke and stop on cancel."""

from __future__ import annotations

import logging
from typing import Any

import redis

from web.config import WebSettings
from web.queue.celery_app import make_celery, send
from web.queue.limits import hard_limit_s, visibility_timeout_s
from web.queue.names import CPU, GPU
from web.queue.registry import has_gpu_worker
from web.queue.relay import publish_cancel
from web.store import Store

log = logging.getLogger("web.queue")


class CeleryDispatcher:
    """judge: for the problems (device, limits); nothing is judged in this process."""

    def __init__(self, settings: WebSettings, store: Store, judge: Any):
        assert settings.queue_url
        self.settings, self.store, self.judge = settings, store, judge
        self.visibility_timeout_s = visibility_timeout_s(settings, judge.problems())
        self.app = make_celery(settings, self.visibility_timeout_s)
        self.redis = redis.Redis.from_url(settings.queue_url, socket_timeout=10)

    def queue_for(self, problem: Any) -> str:
        """A problem with a GPU tier goes to the gpu queue as a whole while a GPU worker is registered; else the
        cpu queue judges its CPU tier and the report says the GPU tier is still to be judged."""
        if problem.meta.device == "cuda" and has_gpu_worker(self.redis):
            return GPU
        return CPU

    def submit(self, submission_id: str) -> None:
        submission = self.store.get(submission_id)
        if submission is None:
            return
        problem = self.judge.problem(submission.problem_id)
        send(self.app, submission_id, self.queue_for(problem), hard_limit_s(self.settings, problem))
        self.store.mark_dispatched(submission_id)  # the reaper re-sends what was stored but never sent

    def waiting(self) -> int:
        return self.store.counts().by_status.get("queued", 0)

    def cancel(self, submission_id: str) -> None:
        """The store says cancelled already: a waiting task is revoked, a running one is told to stop."""
        self.app.control.revoke(submission_id)
        publish_cancel(self.redis, submission_id)

    def ping(self) -> None:
        self.redis.ping()

    def close(self) -> None:
        self.app.close()
        self.redis.close()
