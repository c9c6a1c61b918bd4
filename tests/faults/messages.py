"""Every task message the broker receives, counted by the broker itself: a thread on Redis's MONITOR sees each push
onto a task queue's lists (a send or re-send: LPUSH; kombu's restore of a delivered message: RPUSH at the head, or
LPUSH when a worker rejects one back), with the submission it carries."""

from __future__ import annotations

import re
import threading
from collections import Counter
from typing import Any

import redis

# `"lpush" "cpu\x06\x163" "{\"body\": ...` as MONITOR prints it: the command, the key (a queue, or one of its
# priority lists), and in the message's headers the task id, which is the submission's.
PUSH = re.compile(r'^"(lpush|rpush)" "((?:cpu|gpu)(?:\\x06\\x16\d)?)" ', re.IGNORECASE)
TASK_ID = re.compile(r'\\"id\\": \\"([^\\"]+)\\"')


class TaskMessages:
    """Counts pushes per submission while running; reconnects when Redis restarts (nothing is pushed meanwhile)."""

    def __init__(self, url: str):
        self.url = url
        self.sent: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="task-messages", daemon=True)
        self._connection: Any = None

    def start(self) -> TaskMessages:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("MONITOR did not start on the test's Redis in 30 s")
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:  # no read timeout: a timeout would drop the connection, and a push with it
                self._connection = connection = _connect(self.url)
                connection.send_command("MONITOR")
                assert connection.read_response() in (b"OK", "OK")
                self._ready.set()
                while not self._stop.is_set():
                    line = connection.read_response()
                    self._count(line.decode(errors="replace") if isinstance(line, bytes) else str(line))
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                self._stop.wait(0.3)  # Redis is down (or we are stopping): nothing is pushed until it is back

    def _count(self, line: str) -> None:
        command = line.split("] ", 1)[-1]
        if PUSH.match(command) and (found := TASK_ID.search(command)):
            with self._lock:
                self.sent[found.group(1)] += 1

    def of(self, ids: list[str] | set[str]) -> int:
        """How many task messages carried any of these submissions."""
        with self._lock:
            return sum(self.sent[sid] for sid in ids)

    def stop(self) -> None:
        self._stop.set()
        if self._connection is not None:
            self._connection.disconnect()
        self._thread.join(timeout=5)


def _connect(url: str) -> Any:
    """A connection with no read timeout (redis-py's default of 5 s would drop it on a quiet broker)."""
    return redis.Redis.from_url(url, socket_timeout=None).connection_pool.get_connection()
