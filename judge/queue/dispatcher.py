"""The Celery backend of the Dispatcher seam: route by the problem's device, send by id, revoke and stop on cancel."""

from __future__ import annotations

import logging
from typing import Any

import redis
from kombu.exceptions import KombuError

from judge.queue.broker import Broker
from judge.queue.celery_app import NORMAL, make_celery, send
from judge.queue.limits import hard_limit_s, visibility_timeout_s
from judge.queue.names import CPU, GPU
from judge.queue.registry import has_gpu_worker
from judge.queue.relay import publish_cancel
from judge.queue.settings import QueueSettings
from judge.queue.store import Store

log = logging.getLogger("web.queue")


class CeleryDispatcher:
    """judge: for the problems (device, limits); nothing is judged in this process."""

    def __init__(self, settings: QueueSettings, store: Store, judge: Any):
        assert settings.queue_url
        self.settings, self.store, self.judge = settings, store, judge
        self.visibility_timeout_s = visibility_timeout_s(settings, judge.problems())
        self.app = make_celery(settings, self.visibility_timeout_s)
        self.broker = Broker(self.app)
        self.redis = redis.Redis.from_url(settings.queue_url, socket_timeout=10)

    def queue_for(self, problem: Any) -> str:
        """A problem with a GPU tier goes to the gpu queue as a whole while a GPU worker is registered; else the
        cpu queue judges its CPU tier and the report says the GPU tier is still to be judged."""
        if problem.meta.device == "cuda" and has_gpu_worker(self.redis):
            return GPU
        return CPU

    def submit(self, submission_id: str) -> None:
        """Send a stored submission. If the broker is away it stays stored and unsent: the 202 still holds, and the
        reaper sends it once the broker is back (judge.queue.reaper)."""
        self.dispatch(submission_id)

    def dispatch(self, submission_id: str, priority: int = NORMAL) -> bool:
        """submit() at `priority` (celery_app.FIRST: work taken back from a worker that died); whether it was sent."""
        submission = self.store.get(submission_id)
        if submission is None:
            return False
        problem = self.judge.problem(submission.problem_id)
        try:
            send(self.app, submission_id, self.queue_for(problem), hard_limit_s(self.settings, problem), priority)
        except (OSError, redis.RedisError, KombuError) as exc:
            log.error("could not send %s to the queue (%s): the reaper sends it later", submission_id, exc)
            return False
        self.store.mark_dispatched(submission_id)
        return True

    def waiting(self) -> int:
        return self.store.counts().by_status.get("queued", 0)

    def cancel(self, submission_id: str) -> None:
        """The store says cancelled already: a waiting task is revoked, a running one is told to stop. With the
        broker away, the store alone still keeps a cancelled submission from being judged or reported."""
        try:
            self.app.control.revoke(submission_id)
            publish_cancel(self.redis, submission_id)
        except (OSError, redis.RedisError, KombuError) as exc:
            log.error("could not tell the workers to stop %s: %s", submission_id, exc)

    def ping(self) -> None:
        self.redis.ping()

    def close(self) -> None:
        self.app.close()
        self.redis.close()
