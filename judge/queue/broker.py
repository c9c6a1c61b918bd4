"""What the broker holds, read as kombu's Redis transport keeps it: task messages waiting in each queue (one Redis
list per priority step) and messages delivered to a worker and not yet acknowledged (the `unacked` hash, with the
time of delivery in `unacked_index`), by submission id (a task's id is its submission's); and kombu's own restore,
which puts a delivered message back at the head of its queue."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from celery import Celery

from judge.queue.names import QUEUES


@dataclass(frozen=True)
class Delivered:
    tag: str  # kombu's delivery tag: what restore_by_tag puts back
    since: float  # when it was delivered (epoch seconds, kombu's clock)


@dataclass(frozen=True)
class Held:
    """One look at the broker: which submissions it holds a message of, and where."""

    waiting: Counter[str] = field(default_factory=Counter)  # id -> messages waiting in a queue
    delivered: dict[str, list[Delivered]] = field(default_factory=dict)  # id -> delivered, not acknowledged
    depth: dict[str, int] = field(default_factory=dict)  # queue -> messages waiting in it

    def holds(self, submission_id: str) -> bool:
        return submission_id in self.waiting or submission_id in self.delivered

    def messages(self, submission_id: str) -> int:
        return self.waiting[submission_id] + len(self.delivered.get(submission_id, ()))


def _task_id(payload: Any) -> str | None:
    """The task id of a kombu message (Celery's protocol 2 puts it in the headers), or None for anything else."""
    try:
        task_id = payload["headers"]["id"]
    except (KeyError, TypeError):
        return None
    return task_id if isinstance(task_id, str) else None


def _json(raw: bytes | str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


class Broker:
    """The Celery app's broker, through a kombu channel of its own: the queue names, the key prefix and the unacked
    keys are kombu's, never spelled here."""

    def __init__(self, app: Celery, queues: tuple[str, ...] = QUEUES):
        self.app, self.queues = app, queues

    @contextmanager
    def _channel(self) -> Iterator[Any]:
        with self.app.connection_for_write() as connection:
            yield connection.default_channel

    def look(self) -> Held:
        """Every queue's waiting messages and every delivered one, read in one transaction (a snapshot). A message
        a worker has just popped and not yet recorded as delivered is in neither for a moment: callers that act on
        an absence look twice."""
        with self._channel() as channel:
            lists = [(q, channel._q_for_pri(q, p)) for q in self.queues for p in channel.priority_steps]
            with channel.conn_or_acquire() as client:
                pipe = client.pipeline(transaction=True)
                for _, name in lists:
                    pipe.lrange(name, 0, -1)
                pipe.hgetall(channel.unacked_key)
                pipe.zrange(channel.unacked_index_key, 0, -1, withscores=True)
                *waiting, unacked, index = pipe.execute()
        held = Held(depth=dict.fromkeys(self.queues, 0))
        for (queue, _), messages in zip(lists, waiting):
            held.depth[queue] += len(messages)
            held.waiting.update(sid for sid in map(_task_id, map(_json, messages)) if sid is not None)
        since = {_tag(tag): float(score) for tag, score in index}
        for tag, raw in unacked.items():
            entry = _json(raw)  # [message, exchange, routing key]
            sid = _task_id(entry[0]) if isinstance(entry, list) and entry else None
            if sid is not None:
                held.delivered.setdefault(sid, []).append(Delivered(_tag(tag), since.get(_tag(tag), 0.0)))
        return held

    def restore(self, tag: str) -> None:
        """Put a delivered message back at the head of its queue: kombu's restore_by_tag (what its visibility
        timeout does), which pushes onto the end the workers pop next. Atomic on the unacked entry: a message
        restored twice, or acknowledged meanwhile, goes back at most once. (Reject(requeue=True) on this transport
        restores to the other end: behind everything waiting.)"""
        with self._channel() as channel:
            channel.qos.restore_by_tag(tag)


def _tag(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
