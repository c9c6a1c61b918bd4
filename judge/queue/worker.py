"""`judge worker --queue cpu|gpu`: a Celery worker (threads pool) around one warm Judge, kept across tasks."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import redis
from celery.exceptions import Reject
from celery.signals import worker_shutting_down
from celery.worker import state as worker_state

from judge.queue.celery_app import send, serve_tasks
from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.judging import internal_error, judge_submission
from judge.queue.limits import hard_limit_s
from judge.queue.names import GPU, WORKER
from judge.queue.outage import STORE_WAIT_S, OutageLog, store_unreachable, wait_until
from judge.queue.reaper import Reaper
from judge.queue.registry import TTL_S, Heartbeat, alive
from judge.queue.relay import cancel_listener, publish_event
from judge.queue.settings import QueueSettings
from judge.queue.store import SqlStore, Store, Submission, Unmigrated, now
from judge.queue.tally import RedisTally
from judge.report.models import Report, Verdict

log = logging.getLogger("web.queue.worker")


def gpu_canary(judge: Any) -> tuple[bool, str]:
    """The GPU runner's self-test (judge.runners.canary); a GPU worker that fails it takes no task."""
    try:
        from judge.runners import canary, plan  # noqa: PLC0415 - GPU hosts only
    except ImportError as exc:  # the GPU runner's canary is not in this checkout
        return False, f"no GPU canary in this version ({exc})"
    key = plan.gpu_runner(judge.settings)
    if key is None:
        return False, "PRACTICE_GPU_RUNNER is not set (local or docker): this host has no GPU runner"
    judge.warm()
    result = canary.check(judge._runner(key))
    return result.ready, result.why


class WorkerRuntime:
    """What every task of this worker shares: the store, the warm judge, Redis, the running judgements."""

    def __init__(
        self,
        settings: QueueSettings,
        store: Store,
        judge: Any,
        client: redis.Redis,
        name: str,
        queue: str,
        dispatcher: CeleryDispatcher,
    ):
        self.settings, self.store, self.judge, self.dispatcher = settings, store, judge, dispatcher
        self.redis, self.name, self.queue = client, name, queue
        self.tally = RedisTally(client, name)
        self.outages = OutageLog(log)
        self._running: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.busy_seconds = 0.0

    def busy(self) -> int:
        with self._lock:
            return len(self._running)

    def running_ids(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._running)

    def on_cancel(self, submission_id: str) -> None:
        with self._lock:
            flag = self._running.get(submission_id)
        if flag is not None:
            flag.set()

    def takeover(self, holder: str | None, started_at: Any) -> bool:
        """May this redelivery judge again what `holder` left running? Only if that worker is gone, or past the
        hard limit (late acks bring a task back only after the visibility timeout, which is above it)."""
        if holder is None or holder == self.name:
            return True  # our own earlier life (same name after a restart), or the in-process pool
        return not alive(self.redis, holder) or started_at < now() - timedelta(seconds=self._hard_max())

    def _hard_max(self) -> float:
        return max(hard_limit_s(self.settings, p) for p in self.judge.problems())

    def _grade(self, submission: Submission, on_event: Any, cancel: threading.Event | None = None) -> Report:
        extra = {"cancel": cancel} if cancel is not None else {}
        report: Report = self.judge.grade(
            submission.problem_id,
            submission.code,
            submission.mode,
            on_event=on_event,
            display_name=submission.file_name,
            **extra,
        )
        return report

    def run(self, submission_id: str) -> None:
        """Judge one task to its one stored report. While the store is away the task waits here (so this slot takes
        no other task and the worker does not spin through the queue), then goes back to the queue whole
        (Reject(requeue=True): Redis puts it back at the head, an AMQP broker requeues it), never deleted."""
        try:
            self._run(submission_id)
        except Exception as exc:
            if not store_unreachable(exc):
                raise
            self.outages.error("store", f"unreachable while judging {submission_id} ({type(exc).__name__})")
            if wait_until(self.store.ping, STORE_WAIT_S):
                self.outages.recovered("store")
                self._let_go(submission_id)
            raise Reject(f"the store was unreachable: {type(exc).__name__}", requeue=True) from exc

    def _let_go(self, submission_id: str) -> None:
        """The store came back: this worker's hold on the submission it could not finish goes back to queued, so the
        task it puts back on the queue is judged by whichever worker takes it. Held, a redelivery that another
        worker took waited for this (live) worker's hold to lapse, sent again every TTL_S: over a minute once."""
        try:
            submission = self.store.get(submission_id)
            if submission is not None and submission.status == "running" and submission.worker == self.name:
                self.store.requeue(submission_id, {"position": 1}, attempt=submission.attempts)
        except Exception as exc:
            if not store_unreachable(exc):
                raise
            self.outages.error("store", f"unreachable again while letting {submission_id} go")

    def _run(self, submission_id: str) -> None:
        cancel = threading.Event()
        started = time.monotonic()
        with self._lock:
            self._running[submission_id] = cancel
        timer: threading.Timer | None = None
        try:  # everything after the slot is taken, the timer included: a busy count never outlives its task
            timer = self._hard_limit_timer(submission_id, cancel)
            report = judge_submission(
                self.store,
                self._grade,
                submission_id,
                self.notify,
                cancel,
                worker=self.name,
                takeover=self.takeover,
            )
        finally:
            if timer is not None:
                timer.cancel()
            with self._lock:
                self._running.pop(submission_id, None)
        busy = time.monotonic() - started
        self.busy_seconds += busy
        if report is not None:
            self._count(submission_id, report, busy)
        else:
            self._later_if_held(submission_id)

    def _later_if_held(self, submission_id: str) -> None:
        """A redelivery that found another worker's attempt still running: that worker may be dead with its
        heartbeat not yet expired. Acking this message must not lose the task, so it is sent again to run after
        the heartbeat's TTL, when a dead holder's key is gone (each further try costs one look at the store)."""
        submission = self.store.get(submission_id)
        if submission is None or submission.status != "running" or submission.worker == self.name:
            return
        problem = self.judge.problem(submission.problem_id)
        send(self.dispatcher.app, submission_id, self.queue, hard_limit_s(self.settings, problem), TTL_S + 1)

    def _hard_limit_timer(self, submission_id: str, cancel: threading.Event) -> threading.Timer:
        """The threads pool has no Celery time limit: past the hard limit the judgement is stopped and its
        one report is an internal_error the learner may submit again."""
        submission = self.store.get(submission_id)
        try:
            hard = hard_limit_s(self.settings, self.judge.problem(submission.problem_id)) if submission else 0.0
        except Exception:  # noqa: BLE001 - a vanished problem: judging stores its internal_error at once
            hard = self.settings.hard_limit_s(60)

        def give_up() -> None:
            if submission is None:
                return
            report = internal_error(submission.problem_id, submission.mode, f"over the hard limit of {hard:.0f} s")
            try:
                if self.store.finish(submission_id, report.model_dump_json()):
                    log.error("%s: over its hard limit (%.0f s); stored internal_error", submission_id, hard)
                    self.notify(submission_id)
            except Exception as exc:  # noqa: BLE001 - the store is away: the task's own finish will say so
                self.outages.error("store", f"could not store the hard-limit report of {submission_id}: {exc}")
            cancel.set()

        timer = threading.Timer(max(hard, 1.0), give_up)
        timer.daemon = True
        timer.start()
        return timer

    def _count(self, submission_id: str, report: Report, busy: float) -> None:
        submission = self.store.get(submission_id)
        if submission is None or submission.finished_at is None:
            return
        latency = (submission.finished_at - submission.created_at).total_seconds()
        verdict = report.verdict.value if isinstance(report.verdict, Verdict) else str(report.verdict)
        try:
            self.tally.judged(submission.problem_id, verdict, latency, busy)
        except redis.RedisError:
            pass

    def notify(self, submission_id: str) -> None:
        publish_event(self.redis, submission_id)


def take_back(
    store: Store, dispatcher: CeleryDispatcher, name: str, running: frozenset[str] = frozenset()
) -> list[str]:
    """A worker starting under a name takes back, at once, what its earlier life left running: that life is over
    (this one has its name), so its submissions go back to queued and to the queue, without waiting for a sweep.
    So does a worker whose consumer Celery restarted (after MISCONF, say): what it holds in the store but is not
    judging (`running`: the ids it is) was lost with the old consumer."""
    taken = []
    for submission in store.running_held_by(name):
        if submission.id in running:
            continue
        if store.requeue(submission.id, {"position": 1}, attempt=submission.attempts):
            log.warning("%s: taking back %s, left running by this worker's earlier life", name, submission.id)
            dispatcher.submit(submission.id)
            taken.append(submission.id)
    return taken


def run_worker(queue: str, concurrency: int, name: str | None = None, log_level: str = "info") -> int:
    """Build the runtime, announce it, start the reaper, and consume `queue` until stopped."""
    from judge.service import Judge  # noqa: PLC0415 - heavy

    settings = QueueSettings()
    if not settings.queue_url:
        print("judge worker: PRACTICE_QUEUE_URL is not set (for example redis://localhost:6379/0)", flush=True)
        return 2
    name = name or f"{queue}-{socket.gethostname()}-{os.getpid()}"
    try:
        store = SqlStore(settings.database())
    except Unmigrated as exc:  # every process but the SQLite default refuses an unmigrated database
        print(f"judge worker: {exc.message}", flush=True)
        return 2
    judge = Judge()
    judge.warm()  # the zygotes import torch once, here; every task forks from them
    canary = "not needed"
    gpu_slots = 0
    if queue == GPU:
        ready, canary = gpu_canary(judge)
        if not ready:
            print(f"judge worker: the GPU canary failed, so this worker takes no task: {canary}", flush=True)
            judge.close()
            store.close()
            return 1
        gpu_slots = concurrency
    client = redis.Redis.from_url(settings.queue_url, socket_timeout=10)
    dispatcher = CeleryDispatcher(settings, store, judge)
    runtime = WorkerRuntime(settings, store, judge, client, name, queue, dispatcher)
    boot = uuid.uuid4().hex  # this life of the worker: a restart under the same name announces a new one
    serve_tasks(runtime.run)

    def state() -> dict[str, Any]:
        return {
            "queue": queue,
            "concurrency": concurrency,
            "busy": runtime.busy(),
            "gpu_slots": gpu_slots,
            "canary": canary,
            "busy_seconds": round(runtime.busy_seconds, 3),
            "boot": boot,
        }

    heartbeat = Heartbeat(client, name, state).start()
    cancels = cancel_listener(client, runtime.on_cancel).start()
    reaper = Reaper(store, dispatcher, settings, judge).start()
    taken = take_back(store, dispatcher, name)
    if taken:
        print(f"judge worker {name}: took back {len(taken)} submission(s) its earlier life left running", flush=True)
    print(f"judge worker {name}: judging the {queue} queue, {concurrency} at a time", flush=True)
    stopping = threading.Event()
    worker_shutting_down.connect(lambda **_: stopping.set(), weak=False)
    try:
        while True:
            worker = dispatcher.app.Worker(
                hostname=f"{name}@%h",
                queues=[queue],
                pool="threads",
                concurrency=concurrency,
                loglevel=log_level.upper(),
                without_gossip=True,
                without_mingle=True,
                optimization="fair",
            )
            worker.start()
            code = int(worker.exitcode or 0)
            if code == 0 or stopping.is_set():
                return code
            # Celery gives up on what it cannot recover from (Redis answering MISCONF after a failed save on a full
            # disk, say) and returns: this process waits for the broker to take writes again and consumes anew.
            runtime.outages.error("broker", f"the consumer stopped (exit {code}); waiting for the broker")
            wait_until(lambda: client.set(WORKER + name + ":probe", "1", ex=5), float("inf"), stopping)
            if stopping.is_set():
                return code
            runtime.outages.recovered("broker")
            worker_state.should_stop = worker_state.should_terminate = None
            taken = take_back(store, dispatcher, name, runtime.running_ids())
            if taken:
                log.warning("%s: took back %d submission(s) the stopped consumer held", name, len(taken))
    finally:
        reaper.stop()
        cancels.stop()
        heartbeat.stop()
        dispatcher.close()
        judge.close()
        store.close()
        serve_tasks(None)
