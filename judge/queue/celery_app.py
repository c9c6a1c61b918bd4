"""The Celery application both sides build: late acks, prefetch 1, reject on worker lost, the visibility timeout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import Celery

from judge.queue.names import CPU, TASK
from judge.queue.settings import QueueSettings

# Task priorities, as kombu's Redis transport serves them: one list per step (0, 3, 6, 9), the workers pop from step
# 0's first. Work taken back from a worker that died goes first: a learner whose judgement was interrupted waits
# for a free slot, not for the whole backlog again.
FIRST = 0
NORMAL = 3


def make_celery(settings: QueueSettings, visibility_timeout_s: float) -> Celery:
    if not settings.queue_url:
        raise ValueError("PRACTICE_QUEUE_URL is not set")
    app = Celery("practice_judge", broker=settings.queue_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # acknowledged after the report is stored: a killed worker's task comes back
        task_reject_on_worker_lost=True,
        # A task raises only when the store is away (judging faults become internal_error reports): leave it
        # unacknowledged, so it comes back after the visibility timeout instead of being lost.
        task_acks_on_failure_or_timeout=False,
        worker_prefetch_multiplier=1,  # a worker holds only what it judges: nothing waits behind a long task
        task_default_queue=CPU,
        task_create_missing_queues=True,
        task_ignore_result=True,  # the store holds every report
        broker_transport_options={"visibility_timeout": visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        worker_cancel_long_running_tasks_on_connection_loss=False,
    )
    app.task(name=TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)(_judge_submission)
    return app


# What runs a task: set by `judge worker` (judge.queue.worker) while it consumes, so that this module, which both
# the web processes and the workers import, imports nothing of the worker's (no circle between the two).
_RUNNER: Callable[[str], None] | None = None


def serve_tasks(runner: Callable[[str], None] | None) -> None:
    """Judge this process's tasks with `runner` (the worker's runtime), or stop (None)."""
    global _RUNNER
    _RUNNER = runner


def _judge_submission(submission_id: str) -> None:
    """The task: judge one stored submission by id, in the worker's warm runtime (judge.queue.worker)."""
    if _RUNNER is None:
        raise RuntimeError("judge_submission runs only inside `judge worker`")
    _RUNNER(submission_id)


def send(app: Celery, submission_id: str, queue: str, hard_limit_s: float, priority: int = NORMAL) -> Any:
    # task_id = the submission id: revoke(id) reaches it wherever it waits, and the broker's messages can be read by
    # submission (judge.queue.broker). time_limit is Celery's hard limit for prefork pools; the threads pool the
    # workers use enforces the same limit itself (judge.queue.worker).
    return app.send_task(
        TASK,
        args=[submission_id],
        task_id=submission_id,
        queue=queue,
        routing_key=queue,
        time_limit=hard_limit_s,
        priority=priority,
    )
