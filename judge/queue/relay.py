"""Redis pub/sub between processes: stored events wake streams in any web process; cancels reach any worker."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import redis

from judge.queue.names import CANCEL, EVENTS
from judge.queue.outage import OutageLog

log = logging.getLogger("web.queue.relay")
OUTAGES = OutageLog(log)  # one line per outage, not one per event (about 80 a submission while Redis was away)


def publish_event(client: redis.Redis, submission_id: str) -> None:
    """After an event is stored (the store is the truth: a lost message costs a stream one poll interval)."""
    try:
        client.publish(EVENTS + submission_id, "1")
    except redis.RedisError as exc:
        OUTAGES.error("broker", f"could not publish an event of {submission_id}: {exc}")


def publish_cancel(client: redis.Redis, submission_id: str) -> None:
    client.publish(CANCEL, submission_id)


class Listener:
    """One thread per process: calls on_message(submission_id) for each message on its channel pattern."""

    def __init__(self, client: redis.Redis, pattern: str, on_message: Callable[[str], None], name: str):
        self.client, self.pattern, self.on_message = client, pattern, on_message
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def start(self) -> Listener:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(self.pattern)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    channel, data = message["channel"], message["data"]
                    channel = channel.decode() if isinstance(channel, bytes) else channel
                    data = data.decode() if isinstance(data, bytes) else str(data)
                    self.on_message(channel[len(EVENTS) :] if channel.startswith(EVENTS) else data)
                pubsub.close()
            except redis.RedisError as exc:
                OUTAGES.error("pub/sub", f"lost ({exc}); listening again every second")
                self._stop.wait(1.0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=3)


def event_listener(client: redis.Redis, on_event: Callable[[str], None]) -> Listener:
    return Listener(client, EVENTS + "*", on_event, "event-relay")


def cancel_listener(client: redis.Redis, on_cancel: Callable[[str], None]) -> Listener:
    return Listener(client, CANCEL, on_cancel, "cancel-relay")
