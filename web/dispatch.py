"""Dispatch seam: the Dispatcher protocol and the in-process pool (a Celery backend implements the same)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Protocol


class Dispatcher(Protocol):
    def submit(self, submission_id: str) -> None:
        """Queue a stored submission (admission limits were checked by the caller)."""

    def waiting(self) -> int:
        """Submissions queued and not yet picked up by a worker."""

    def close(self) -> None: ...


class LocalPool:
    """`workers` threads judging from one FIFO (bounded at admission); the judge is thread-safe and stays warm."""

    def __init__(self, task: Callable[[str], None], workers: int):
        self.task = task
        self._waiting: deque[str] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._loop, name=f"judge-{n}", daemon=True) for n in range(workers)]
        for thread in self._threads:
            thread.start()

    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    def submit(self, submission_id: str) -> None:
        with self._cond:
            self._waiting.append(submission_id)
            self._cond.notify()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._waiting and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                submission_id = self._waiting.popleft()
            self.task(submission_id)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
