"""Counts behind /metrics that any process can add to: in memory (in-process pool) or in Redis (queue workers)."""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from judge.queue.names import TALLY

if TYPE_CHECKING:  # RedisTally is the queue's (the `scale` extra); the in-process LocalTally needs no Redis
    import redis

BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, float("inf"))  # submit -> report, s


@dataclass
class Snapshot:
    judgements: dict[tuple[str, str], int] = field(default_factory=dict)  # (problem, verdict) -> count
    latency_buckets: list[int] = field(default_factory=lambda: [0] * len(BUCKETS))  # per bucket, not cumulative
    latency_sum: float = 0.0
    busy_seconds: dict[str, float] = field(default_factory=dict)  # worker -> seconds spent judging


class Tally(Protocol):
    def judged(self, problem: str, verdict: str, latency_s: float, busy_s: float) -> None: ...
    def snapshot(self) -> Snapshot: ...


def bucket(latency_s: float) -> int:
    return bisect.bisect_left(BUCKETS, latency_s)


class LocalTally:
    def __init__(self, worker: str = "in-process"):
        self.worker = worker
        self._lock = threading.Lock()
        self._snap = Snapshot()
        self._counts: defaultdict[tuple[str, str], int] = defaultdict(int)

    def judged(self, problem: str, verdict: str, latency_s: float, busy_s: float) -> None:
        with self._lock:
            self._counts[(problem, verdict)] += 1
            self._snap.latency_buckets[bucket(latency_s)] += 1
            self._snap.latency_sum += latency_s
            self._snap.busy_seconds[self.worker] = self._snap.busy_seconds.get(self.worker, 0.0) + busy_s

    def snapshot(self) -> Snapshot:
        with self._lock:
            return Snapshot(
                dict(self._counts),
                list(self._snap.latency_buckets),
                self._snap.latency_sum,
                dict(self._snap.busy_seconds),
            )


class RedisTally:
    def __init__(self, client: redis.Redis, worker: str = ""):
        self.client, self.worker = client, worker

    def judged(self, problem: str, verdict: str, latency_s: float, busy_s: float) -> None:
        pipe = self.client.pipeline()
        pipe.hincrby(TALLY + "judgements", f"{problem}|{verdict}", 1)
        pipe.hincrby(TALLY + "latency", str(bucket(latency_s)), 1)
        pipe.hincrbyfloat(TALLY + "latency", "sum", latency_s)
        pipe.hincrbyfloat(TALLY + "busy", self.worker, busy_s)
        pipe.execute()

    def snapshot(self) -> Snapshot:
        snap = Snapshot()
        for key, value in self.client.hgetall(TALLY + "judgements").items():
            problem, _, verdict = _text(key).partition("|")
            snap.judgements[(problem, verdict)] = int(value)
        for key, value in self.client.hgetall(TALLY + "latency").items():
            name = _text(key)
            if name == "sum":
                snap.latency_sum = float(value)
            elif name.isdigit() and int(name) < len(BUCKETS):
                snap.latency_buckets[int(name)] = int(value)
        snap.busy_seconds = {_text(k): float(v) for k, v in self.client.hgetall(TALLY + "busy").items()}
        return snap


def _text(key: bytes | str) -> str:
    """A hash key as redis-py returns it: bytes (str only with decode_responses)."""
    return key.decode() if isinstance(key, bytes) else key
