"""Time limits of queued judgements: each task's hard limit, and the broker's visibility timeout."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from judge.queue.settings import QueueSettings


def hard_limit_s(settings: QueueSettings, problem: Any) -> float:
    return settings.hard_limit_s(problem.meta.limits.wall_s)


def visibility_timeout_s(settings: QueueSettings, problems: Iterable[Any]) -> float:
    """PRACTICE_QUEUE_VISIBILITY_TIMEOUT, else twice the largest hard limit: a task held by a killed worker
    goes back to the queue this long after it was delivered, and never while a live worker may still judge it."""
    if settings.queue_visibility_timeout is not None:
        return settings.queue_visibility_timeout
    return 2 * max((hard_limit_s(settings, p) for p in problems), default=settings.hard_limit_s(60))
