"""Live queue workers, each announced in Redis under a key with a short TTL: routing, health, `judge status`."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from judge.queue.names import GPU, WORKER

TTL_S = 15
BEAT_S = 5.0


@dataclass(frozen=True)
class WorkerInfo:
    name: str
    queue: str
    concurrency: int
    busy: int
    gpu_slots: int
    canary: str
    busy_seconds: float
    boot: str = ""  # this life of the worker (a restart under the same name has a new one)


def live_workers(client: redis.Redis) -> list[WorkerInfo]:
    workers = []
    for key in client.scan_iter(match=WORKER + "*", count=200):
        raw = client.get(key)
        if raw is None:
            continue
        data = json.loads(raw)
        known = {k: v for k, v in data.items() if k in WorkerInfo.__dataclass_fields__}
        workers.append(WorkerInfo(**known))
    return sorted(workers, key=lambda w: w.name)


def alive(client: redis.Redis, name: str) -> bool:
    return bool(client.exists(WORKER + name))


def has_gpu_worker(client: redis.Redis) -> bool:
    return any(w.queue == GPU and w.gpu_slots > 0 for w in live_workers(client))


class Heartbeat:
    """Keeps this worker's key alive while it runs; state() gives what to announce each beat."""

    def __init__(self, client: redis.Redis, name: str, state: Callable[[], dict[str, Any]]):
        self.client, self.name, self.state = client, name, state
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="heartbeat", daemon=True)

    def beat(self) -> None:
        self.client.set(WORKER + self.name, json.dumps({"name": self.name, **self.state()}), ex=TTL_S)

    def start(self) -> Heartbeat:
        self.beat()
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
