"""Wake the event streams of a submission when a judging thread stores something new for it."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict


class Broadcast:
    """Thread-safe publish, asyncio wait; a missed wake-up only costs one poll interval (the store is the truth)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)

    def publish(self, submission_id: str) -> None:
        with self._lock:
            waiters = list(self._waiters.get(submission_id, ()))
        for loop, flag in waiters:
            try:
                loop.call_soon_threadsafe(flag.set)
            except RuntimeError:
                pass  # that loop is closed: its stream is gone

    def subscribe(self, submission_id: str) -> Subscription:
        return Subscription(self, submission_id)


class Subscription:
    """Registered before the store is read, so a publish between the read and the wait is not lost."""

    def __init__(self, broadcast: Broadcast, submission_id: str):
        self.broadcast, self.submission_id = broadcast, submission_id
        self.flag = asyncio.Event()
        self.entry = (asyncio.get_running_loop(), self.flag)
        with broadcast._lock:
            broadcast._waiters[submission_id].add(self.entry)

    async def wait(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.flag.wait(), timeout)
        except TimeoutError:
            pass
        self.flag.clear()

    def close(self) -> None:
        with self.broadcast._lock:
            waiters = self.broadcast._waiters.get(self.submission_id)
            if waiters is not None:
                waiters.discard(self.entry)
                if not waiters:
                    del self.broadcast._waiters[self.submission_id]
