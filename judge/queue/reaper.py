"""Give one message back to each submission that neither the broker nor a live worker holds, once per deployment at
a time (the worker that takes a Redis lock with a TTL runs the pass): a queued submission whose message the broker no
longer has (lost, or never sent), one delivered to a worker that died before starting it, one running under a worker
whose life is over, and one running past its hard limit plus the visibility timeout. The same broker-confirmed view
of stranded work feeds /api/health and `judge status`."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import redis

from judge.queue.broker import Held
from judge.queue.celery_app import FIRST
from judge.queue.limits import hard_limit_s
from judge.queue.names import REAPER
from judge.queue.outage import OutageLog
from judge.queue.registry import BEAT_S, Lives
from judge.queue.settings import QueueSettings
from judge.queue.store import Store, Submission, now

log = logging.getLogger("web.queue.reaper")
EVERY_S = 5.0  # one pass per deployment at most this often (the lock's TTL)
TICK_S = 1.0  # how often each worker's reaper asks for the lock
CONFIRM_S = 4.0  # a suspect is acted on once seen on two passes this far apart (a look can race a delivery)
SEND_GRACE_S = 5.0  # a web process sends within milliseconds of storing: a younger unsent row is not suspect
ORPHAN_S = 2 * BEAT_S  # a delivery this old that no live worker's heartbeat announces: its worker died before starting
LOCK, SEEN = REAPER + "lock", REAPER + "seen"
KINDS = {  # each kind of stranded submission, as health and `judge status` name it
    "no_message": "queued with no message in the broker",
    "delivered_to_dead": "delivered to a worker that is gone",
    "held_by_dead": "running on a worker that is gone",
}


@dataclass(frozen=True)
class Stranded:
    """Submissions nothing is working on, as the broker and the heartbeats confirm: queued with no message in the
    broker (lost, or never sent), queued with its only message delivered to a worker that is gone, or running under
    a worker whose life is over. A submission that merely waits in a long queue is not stranded."""

    no_message: list[str] = field(default_factory=list)
    delivered_to_dead: list[str] = field(default_factory=list)
    held_by_dead: list[str] = field(default_factory=list)

    def ids(self) -> list[str]:
        return [sid for kind in KINDS for sid in getattr(self, kind)]

    def both(self, other: Stranded) -> Stranded:
        """What this look and another both found."""
        return Stranded(*([sid for sid in getattr(self, k) if sid in getattr(other, k)] for k in KINDS))

    def describe(self) -> str:
        found = [(what, getattr(self, kind)) for kind, what in KINDS.items()]
        return "; ".join(f"{what}: {', '.join(ids[:10])}" for what, ids in found if ids)


@dataclass(frozen=True)
class Look:
    """One look at the store, then the broker and the heartbeats (in that order: a message sent after the store was
    read is then seen, never missed)."""

    stranded: Stranded
    held: Held
    lives: Lives
    running: dict[str, Submission]


def look(store: Store, broker: Any, client: redis.Redis) -> Look:
    moment = now()
    queued = store.waiting_since(moment - timedelta(seconds=SEND_GRACE_S))
    running = {s.id: s for s in store.running_since(moment) if s.worker is not None}
    held, lives = broker.look(), Lives.read(client)
    holding, long_ago = lives.holding(), moment.timestamp() - ORPHAN_S
    orphaned = [
        sid
        for sid in queued
        if sid in held.delivered and not held.waiting[sid] and sid not in holding
        if all(d.since < long_ago for d in held.delivered[sid])
    ]
    no_message = [sid for sid in queued if not held.holds(sid)]
    dead = [sid for sid, s in running.items() if not lives.alive(str(s.worker))]
    return Look(Stranded(no_message, orphaned, dead), held, lives, running)


def stranded(store: Store, broker: Any, client: redis.Redis) -> Stranded:
    """What nothing is working on now, confirmed by a second look at whatever the first found (a message a worker
    has just popped is in no list for a moment). Raises if the store or Redis cannot be asked: nobody can tell then."""
    first = look(store, broker, client).stranded
    return first if not first.ids() else first.both(look(store, broker, client).stranded)


def put_back(submission_id: str, held: Held, holding: frozenset[str], dispatcher: Any) -> str:
    """Give a submission just queued again one message, at the head of its queue: nothing if a live worker holds its
    delivery (`holding`) or a message waits already; kombu's restore of a delivery a dead worker left
    unacknowledged (the message goes back where the workers pop next); else a new message at the first priority.
    What it did, for the log."""
    if submission_id in holding or held.waiting[submission_id]:
        return "a message of it is held already"
    delivered = held.delivered.get(submission_id, [])
    for delivery in delivered:
        dispatcher.broker.restore(delivery.tag)
    if delivered:
        dispatcher.store.mark_dispatched(submission_id)
        return "put back at the head of its queue"
    return "sent again, first" if dispatcher.dispatch(submission_id, FIRST) else "not sent (the broker is away)"


def stuck(store: Store, settings: QueueSettings, judge: Any, visibility_timeout_s: float) -> list[Submission]:
    """Running past its hard limit plus the visibility timeout: whoever holds it has long stopped reporting it."""
    moment = now()
    shortest = min((hard_limit_s(settings, p) for p in judge.problems()), default=settings.hard_limit_s(60))
    found = []
    for submission in store.running_since(moment - timedelta(seconds=shortest + visibility_timeout_s)):
        try:
            hard = hard_limit_s(settings, judge.problem(submission.problem_id))
        except Exception:  # noqa: BLE001 - a vanished problem: the task will store its internal_error
            hard = shortest
        started = submission.started_at or submission.created_at
        if started < moment - timedelta(seconds=hard + visibility_timeout_s):
            found.append(submission)
    return found


def confirmed(client: redis.Redis, suspects: Stranded) -> Stranded:
    """The suspects an earlier pass (of any worker) saw too, CONFIRM_S or more ago; the rest are remembered (in
    Redis, by the broker's clock) for the next pass, and what is no longer suspect is forgotten."""
    seconds, micros = client.time()
    moment = seconds + micros / 1e6
    before = {_text(k): float(v) for k, v in client.hgetall(SEEN).items()}
    keys = {kind: [f"{kind}:{sid}" for sid in getattr(suspects, kind)] for kind in KINDS}
    since: dict[Any, float] = {key: before.get(key, moment) for names in keys.values() for key in names}
    pipe = client.pipeline(transaction=True)
    pipe.delete(SEEN)
    if since:
        pipe.hset(SEEN, mapping=since)
        pipe.expire(SEEN, int(10 * EVERY_S))
    pipe.execute()
    return Stranded(*([k.split(":", 1)[1] for k in keys[kind] if since[k] <= moment - CONFIRM_S] for kind in KINDS))


def reap(store: Store, dispatcher: Any, client: redis.Redis, settings: QueueSettings, judge: Any) -> int:
    """One pass: give each stranded submission confirmed on two passes, and each stuck one, its one message back.
    The store's state machine keeps a wrong guess harmless: a submission is started once per attempt, finished
    once, and a requeue names the attempt it saw."""
    seen = look(store, dispatcher.broker, client)
    sure, holding = confirmed(client, seen.stranded), seen.lives.holding()
    acted: set[str] = set()

    def back(submission: Submission, why: str) -> None:
        if submission.id not in acted and store.requeue(submission.id, {"position": 1}, attempt=submission.attempts):
            log.warning("%s: %s; %s", submission.id, why, put_back(submission.id, seen.held, holding, dispatcher))
            acted.add(submission.id)

    for submission in stuck(store, settings, judge, dispatcher.visibility_timeout_s):
        back(submission, f"running on {submission.worker} past its hard limit")
    for sid in sure.held_by_dead:
        back(seen.running[sid], f"its worker {seen.running[sid].worker} is gone")
    for kind in ("delivered_to_dead", "no_message"):
        for sid in getattr(sure, kind):
            now_in_store = store.get(sid)
            if now_in_store is not None and now_in_store.status == "queued":  # not started since the look
                log.warning("%s: %s; %s", sid, KINDS[kind], put_back(sid, seen.held, holding, dispatcher))
                acted.add(sid)
    return len(acted)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Reaper:
    """Each worker runs one; a pass runs only in the worker that takes the lock, and the lock's TTL (never released
    early) spaces the deployment's passes EVERY_S apart, whichever worker runs them."""

    def __init__(self, store: Store, dispatcher: Any, client: redis.Redis, settings: QueueSettings, judge: Any):
        self.args = (store, dispatcher, client, settings, judge)
        self.lock = client.lock(LOCK, timeout=EVERY_S, thread_local=False)
        self.outages = OutageLog(log)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reaper", daemon=True)

    def start(self) -> Reaper:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(TICK_S):
            try:
                if self.lock.acquire(blocking=False):
                    reap(*self.args)
                self.outages.recovered("reaper")
            except Exception as exc:  # noqa: BLE001 - the store or broker is away: the next pass tries again
                self.outages.error("reaper", f"a pass failed ({type(exc).__name__}: {exc})"[:300])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
