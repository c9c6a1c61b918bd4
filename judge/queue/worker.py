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
from kombu.exceptions import KombuError

from judge.queue.celery_app import FIRST, serve_tasks
from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.judging import internal_error, judge_submission
from judge.queue.limits import hard_limit_s
from judge.queue.names import GPU, PROBE
from judge.queue.outage import STORE_WAIT_S, OutageLog, store_unreachable, wait_until
from judge.queue.reaper import Reaper, put_back
from judge.queue.registry import Heartbeat, alive, connection_name
from judge.queue.relay import cancel_listener, publish_event
from judge.queue.settings import QueueSettings
from judge.queue.store import FINISHED, SqlStore, Store, Submission, Unmigrated, now
from judge.queue.tally import RedisTally
from judge.queue.waiting import Refused, broker_away, database_away, wait_for, where
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
    """What every task of this worker shares: the store, the warm judge, Redis, the deliveries its slots hold."""

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
        self._holding: dict[str, threading.Event] = {}  # submission -> its cancel flag, while a slot holds it
        self._lock = threading.Lock()
        self.busy_seconds = 0.0

    def busy(self) -> int:
        with self._lock:
            return len(self._holding)

    def holding(self) -> frozenset[str]:
        """The submissions a slot of this worker holds a delivery of (judging it, or waiting for the store)."""
        with self._lock:
            return frozenset(self._holding)

    def on_cancel(self, submission_id: str) -> None:
        with self._lock:
            flag = self._holding.get(submission_id)
        if flag is not None:
            flag.set()

    def takeover(self, holder: str | None, started_at: Any) -> bool:
        """May this delivery judge again what `holder` left running? If that worker is gone, or past the hard limit
        (late acks bring a task back only after the visibility timeout, which is above it). Under our own name: our
        earlier life's, or a consumer Celery stopped; never another slot's, which run() refused before this."""
        if holder is None or holder == self.name:
            return True
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
        """Judge one delivery to its one stored report. A second delivery of what another slot of this worker holds
        (a duplicate message) is acknowledged and judges nothing: the first is the submission's one message."""
        with self._lock:
            duplicate = submission_id in self._holding
            cancel = self._holding.setdefault(submission_id, threading.Event())
        if duplicate:
            log.warning("%s: delivered again while another slot of %s holds it; dropped", submission_id, self.name)
            return
        try:
            self._judge_or_hand_back(submission_id, cancel)
        finally:
            with self._lock:
                self._holding.pop(submission_id, None)

    def _judge_or_hand_back(self, submission_id: str, cancel: threading.Event) -> None:
        """While the store is away the task waits here (so this slot takes no other task and the worker does not spin
        through the queue); when it is back, the submission is handed back to the head of the queue. If the store
        stays away, or the broker cannot take the message, the delivery is rejected back to the queue (kombu's Redis
        transport puts it behind the waiting ones): never deleted."""
        try:
            self._judge(submission_id, cancel)
        except Exception as exc:
            if not store_unreachable(exc):
                raise
            self.outages.error("store", f"unreachable while judging {submission_id} ({type(exc).__name__})")
            if wait_until(self.store.ping, STORE_WAIT_S):
                self.outages.recovered("store")
                if self._hand_back(submission_id):
                    return  # acknowledged: its new message waits at the head of the queue
            raise Reject(f"the store was unreachable: {type(exc).__name__}", requeue=True) from exc

    def _hand_back(self, submission_id: str) -> bool:
        """The store came back: what this slot could not finish goes back to queued (if it was running here) and to
        the head of its queue, as a message at the first priority; this delivery is then acknowledged. Held, another
        worker's delivery of it would wait for this (live) worker's hold to lapse. Whether it was done."""
        try:
            submission = self.store.get(submission_id)
            if submission is None or submission.status in FINISHED:
                return True  # nothing left to judge
            if submission.status == "running":
                if submission.worker != self.name:
                    return True  # another worker took it over: that delivery is its one message
                self.store.requeue(submission_id, {"position": 1}, attempt=submission.attempts)
            return self.dispatcher.dispatch(submission_id, FIRST)
        except Exception as exc:
            if not store_unreachable(exc):
                raise
            self.outages.error("store", f"unreachable again while handing {submission_id} back")
            return False

    def _judge(self, submission_id: str, cancel: threading.Event) -> None:
        started = time.monotonic()
        timer: threading.Timer | None = None
        try:
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
        busy = time.monotonic() - started
        self.busy_seconds += busy
        # None: judged already, cancelled, or held by a live worker, whose own delivery is the submission's message
        # (if that worker dies, the reaper puts it back): this one is acknowledged and nothing is sent again.
        if report is not None:
            self._count(submission_id, report, busy)

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
    store: Store, dispatcher: CeleryDispatcher, name: str, holding: frozenset[str] = frozenset()
) -> list[str]:
    """A worker starting under a name takes back, at once, what its earlier life left running: that life is over
    (this one has its name), so its submissions go back to queued, each with one message at the head of its queue
    (reaper.put_back: kombu's restore of the delivery the dead life left unacknowledged, or a message at the first
    priority). So does a worker whose consumer Celery restarted (after MISCONF, say): what it holds in the store but
    no slot holds (`holding`) was lost with the old consumer. If the broker cannot be read now, the submissions
    stay queued and the reaper puts them back."""
    taken = []
    for submission in store.running_held_by(name):
        if submission.id not in holding and store.requeue(submission.id, {"position": 1}, attempt=submission.attempts):
            taken.append(submission.id)
    if not taken:
        return taken
    try:
        held = dispatcher.broker.look()
        for submission_id in taken:
            how = put_back(submission_id, held, holding, dispatcher)
            log.warning("%s: took back %s, left running by this worker's earlier life: %s", name, submission_id, how)
    except (OSError, redis.RedisError, KombuError) as exc:
        log.error("%s: took back %d submission(s) but could not reach the broker (%s): the reaper puts them back",
                  name, len(taken), exc)  # fmt: skip
    return taken


def run_worker(queue: str, concurrency: int, name: str | None = None, log_level: str = "info") -> int:
    """Wait for the store and the broker, build the runtime, announce it, start the reaper, and consume `queue` until
    stopped."""
    from judge.service import Judge  # noqa: PLC0415 - heavy

    settings = QueueSettings()
    if not settings.queue_url:
        print("judge worker: PRACTICE_QUEUE_URL is not set (for example redis://localhost:6379/0)", flush=True)
        return 2
    name = name or f"{queue}-{socket.gethostname()}-{os.getpid()}"
    who, url = f"judge worker {name}", settings.database()
    try:  # every process but the SQLite default refuses an unmigrated database
        store = wait_for(lambda: SqlStore(url), f"the database at {where(url)}", who, database_away)
    except Unmigrated as exc:
        print(f"judge worker: {exc.message}", flush=True)
        return 2
    client = redis.Redis.from_url(settings.queue_url, socket_timeout=10, client_name=connection_name(name))
    probe = PROBE + name  # its own prefix: nothing that reads heartbeats ever meets it
    try:
        wait_for(lambda: client.set(probe, "1", ex=5), f"the broker at {where(settings.queue_url)}", who, broker_away)
    except Refused:
        store.close()
        raise
    judge = Judge()
    dispatcher = CeleryDispatcher(settings, store, judge)
    # Before warming: an interrupted learner should not wait for it. The database answered a moment ago; if it went
    # away since, this waits for it again (the same one line), since only this life can take back its earlier one's.
    taken = wait_for(lambda: take_back(store, dispatcher, name), f"the database at {where(url)}", who, database_away)
    if taken:
        print(f"judge worker {name}: took back {len(taken)} submission(s) its earlier life left running", flush=True)
    judge.warm()  # the zygotes import torch once, here; every task forks from them
    canary = "not needed"
    gpu_slots = 0
    if queue == GPU:
        ready, canary = gpu_canary(judge)
        if not ready:
            print(f"judge worker: the GPU canary failed, so this worker takes no task: {canary}", flush=True)
            dispatcher.close()
            judge.close()
            store.close()
            return 1
        gpu_slots = concurrency
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
            "holding": sorted(runtime.holding()),
        }

    heartbeat = Heartbeat(client, name, state).start()
    cancels = cancel_listener(client, runtime.on_cancel).start()
    reaper = Reaper(store, dispatcher, client, settings, judge).start()
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
            wait_until(lambda: client.set(probe, "1", ex=5), float("inf"), stopping)
            if stopping.is_set():
                return code
            runtime.outages.recovered("broker")
            worker_state.should_stop = worker_state.should_terminate = None
            taken = take_back(store, dispatcher, name, runtime.holding())
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
