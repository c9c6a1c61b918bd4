"""Live queue workers, each announced in Redis under a key with a short TTL: routing, health, `judge status`, and
whether the worker holding a submission still lives."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from pydantic import BaseModel, ConfigDict, ValidationError

from judge.queue.names import GPU, WORKER
from judge.queue.outage import OutageLog

log = logging.getLogger("web.queue.registry")
SKIPPED = OutageLog(log)  # one line per 30 s about keys that are not heartbeats, not one per health probe
TTL_S = 15
BEAT_S = 5.0
# Just after the broker restarted, no client is connected yet: a missing connection then says nothing of a death.
RECONNECT_GRACE_S = 10.0


class WorkerInfo(BaseModel):
    """What a heartbeat announces, as JSON under WORKER + name. Any other value found there is not a heartbeat."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    queue: str
    concurrency: int
    busy: int
    gpu_slots: int
    canary: str
    busy_seconds: float
    boot: str = ""  # this life of the worker (a restart under the same name has a new one)
    holding: list[str] = []  # submissions this life holds a delivery of (judging, or waiting for the store)


def connection_name(worker: str) -> str:
    """The name a worker's Redis connections carry (CLIENT SETNAME takes no spaces, and a --name may have any)."""
    return "practice-worker-" + hashlib.sha256(worker.encode()).hexdigest()[:16]


def _text(value: bytes | str) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else value


def _read(client: redis.Redis, key: bytes | str) -> WorkerInfo | None:
    """The heartbeat under `key`, or None (logged) for anything else a key under the prefix may hold."""
    name = _text(key)[len(WORKER) :]
    try:
        raw = client.get(key)
        info = None if raw is None else WorkerInfo.model_validate_json(raw)
    except (redis.ResponseError, ValidationError) as exc:  # WRONGTYPE (a hash, a list), or JSON of another shape
        SKIPPED.error("heartbeat", f"skipped {_text(key)!r}: not a heartbeat ({type(exc).__name__})")
        return None
    if info is not None and info.name != name:
        SKIPPED.error("heartbeat", f"skipped {_text(key)!r}: a heartbeat of {info.name!r} under another name")
        return None
    return info


def live_workers(client: redis.Redis) -> list[WorkerInfo]:
    """Every well-formed heartbeat; a key that holds anything else is skipped and logged, never raised on."""
    found = (_read(client, key) for key in client.scan_iter(match=WORKER + "*", count=200))
    return sorted((info for info in found if info is not None), key=lambda w: w.name)


def has_gpu_worker(client: redis.Redis) -> bool:
    return any(w.queue == GPU and w.gpu_slots > 0 for w in live_workers(client))


@dataclass(frozen=True)
class Lives:
    """One look at which workers live: a heartbeat within TTL_S, and (where the broker lists its clients) a
    connection still open. A killed process's sockets close at once, so its death shows at the next look rather than
    TTL_S later; a worker cut off from the broker, or hung, shows by its heartbeat lapsing."""

    beating: dict[str, WorkerInfo]
    connected: frozenset[str] | None  # connection names; None: not known (CLIENT LIST refused, or just restarted)

    @classmethod
    def read(cls, client: redis.Redis) -> Lives:
        beating = {w.name: w for w in live_workers(client)}
        try:
            uptime = int(client.info("server").get("uptime_in_seconds", 0))
            names = frozenset(str(c.get("name", "")) for c in client.client_list())
        except redis.ResponseError:  # a managed Redis may refuse INFO or CLIENT LIST: the heartbeat alone decides
            return cls(beating, None)
        return cls(beating, None if uptime < RECONNECT_GRACE_S else names)

    def alive(self, worker: str) -> bool:
        if worker not in self.beating:
            return False
        return self.connected is None or connection_name(worker) in self.connected

    def holding(self) -> frozenset[str]:
        """The submissions some live worker announces it holds a delivery of."""
        return frozenset(sid for w in self.beating.values() if self.alive(w.name) for sid in w.holding)


def alive(client: redis.Redis, name: str) -> bool:
    return Lives.read(client).alive(name)


class Heartbeat:
    """Keeps this worker's key alive while it runs; state() gives what to announce each beat (WorkerInfo's fields
    but the name)."""

    def __init__(self, client: redis.Redis, name: str, state: Callable[[], dict[str, Any]]):
        self.client, self.name, self.state = client, name, state
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="heartbeat", daemon=True)

    def beat(self) -> None:
        info = WorkerInfo(name=self.name, **self.state())
        self.client.set(WORKER + self.name, info.model_dump_json(), ex=TTL_S)

    def start(self) -> Heartbeat:
        try:
            self.beat()
        except redis.RedisError:
            pass  # the broker went away (or refuses writes) since the worker waited for it: the loop beats again
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(BEAT_S):
            try:
                self.beat()
            except redis.RedisError:
                pass  # the broker is away: the key lapses and we are "not alive" until it is back

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=BEAT_S + 1)
        try:
            self.client.delete(WORKER + self.name)
        except redis.RedisError:
            pass
