"""Re-dispatch what neither the broker nor a live worker holds: queued with nothing taking it (a message the broker
lost, or one never sent), running under a worker whose heartbeat is gone, or running past its hard limit plus the
visibility timeout. The same view of stranded work feeds /api/health and `judge status`."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import redis

from judge.queue.limits import hard_limit_s
from judge.queue.outage import OutageLog
from judge.queue.registry import TTL_S, alive
from judge.queue.settings import QueueSettings
from judge.queue.store import Store, Submission, now

log = logging.getLogger("web.queue.reaper")
EVERY_S = 10.0
UNSENT_AFTER_S = 30.0  # a web process sends within milliseconds of storing; older and unsent means it died
RESEND_S = 30.0  # queued this long since it was last sent (or stored) with nothing taking it: sent again
WAITING_S = 60.0  # and this long: stranded, which /api/health and `judge status` name (a backlog waits less)
HELD_GRACE_S = float(TTL_S)  # a holder whose heartbeat has been gone this long (after its key lapsed) is dead


@dataclass(frozen=True)
class Overdue:
    stuck: list[Submission]  # running past hard limit + visibility timeout
    unsent: list[str]


@dataclass(frozen=True)
class Stranded:
    """Submissions nothing is working on: queued past WAITING_S since last sent (a lost message, or one never
    sent), or running under a worker whose heartbeat is gone (a killed worker). Empty when all is well."""

    waiting: list[str] = field(default_factory=list)
    held_by_dead: list[str] = field(default_factory=list)

    def ids(self) -> list[str]:
        return [*self.waiting, *self.held_by_dead]

    def describe(self) -> str:
        parts = []
        if self.waiting:
            parts.append(f"queued over {WAITING_S:.0f} s with nothing taking them: {', '.join(self.waiting[:10])}")
        if self.held_by_dead:
            parts.append(f"running on a worker that is gone: {', '.join(self.held_by_dead[:10])}")
        return "; ".join(parts)


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


def stranded(
    store: Store, client: redis.Redis, grace_s: float = HELD_GRACE_S, waiting_s: float = WAITING_S
) -> Stranded:
    """What nothing is working on now (raises if the store or Redis cannot be asked: then nobody can tell)."""
    moment = now()
    waiting = store.waiting_since(moment - timedelta(seconds=waiting_s))
    held = []
    for submission in store.running_since(moment - timedelta(seconds=grace_s)):
        if submission.worker is not None and not alive(client, submission.worker):
            held.append(submission.id)
    return Stranded(waiting, held)


def reap(store: Store, dispatcher: Any, settings: QueueSettings, judge: Any, suspects: dict[str, float]) -> int:
    """One pass: re-send what waits with nothing taking it, re-dispatch what a dead worker held (seen dead on two
    passes HELD_GRACE_S apart, so that a broker restart, which drops every heartbeat for a beat, takes nothing
    back), and what ran past its hard limit. The store's state machine keeps every extra send harmless: a
    submission is started once per attempt and finished once."""
    found = overdue(store, settings, judge, dispatcher.visibility_timeout_s)
    sent: set[str] = set()

    def send(submission_id: str, why: str) -> None:
        if submission_id not in sent:
            log.warning("sending %s (again): %s", submission_id, why)
            dispatcher.submit(submission_id)
            sent.add(submission_id)

    for submission in found.stuck:
        if store.requeue(submission.id, {"position": 1}, attempt=submission.attempts):
            send(submission.id, f"running on {submission.worker} past its hard limit")
    for submission_id in found.unsent:
        send(submission_id, "stored but never sent (its web process died)")
    lost = stranded(store, dispatcher.redis, waiting_s=RESEND_S)
    moment = time.monotonic()
    for gone in [sid for sid in suspects if sid not in lost.held_by_dead]:
        del suspects[gone]
    for submission_id in lost.held_by_dead:
        first = suspects.setdefault(submission_id, moment)
        if moment - first < HELD_GRACE_S:
            continue
        held = store.get(submission_id)
        if held is not None and store.requeue(submission_id, {"position": 1}, attempt=held.attempts):
            send(submission_id, f"its worker {held.worker} is gone (no heartbeat)")
            suspects.pop(submission_id, None)
    for submission_id in lost.waiting:
        send(submission_id, "queued with nothing taking it (a lost or unsent message)")
    return len(sent)


class Reaper:
    def __init__(self, store: Store, dispatcher: Any, settings: QueueSettings, judge: Any):
        self.args = (store, dispatcher, settings, judge)
        self.outages = OutageLog(log)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reaper", daemon=True)

    def start(self) -> Reaper:
        self._thread.start()
        return self

    def _loop(self) -> None:
        suspects: dict[str, float] = {}
        while not self._stop.wait(EVERY_S):
            try:
                reap(*self.args, suspects)
                self.outages.recovered("reaper")
            except Exception as exc:  # noqa: BLE001 - the store or broker is away: the next pass tries again
                self.outages.error("reaper", f"a pass failed ({type(exc).__name__}: {exc})"[:300])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
