"""Dispatch seam: the Dispatcher protocol and the in-process pool (judge.queue.dispatcher is the Celery backend)."""

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

    def cancel(self, submission_id: str) -> None:
        """Stop its work: drop it from the queue, or kill its running judgement (the store already says cancelled)."""

    def close(self) -> None: ...


class LocalPool:
    """`workers` threads judging from one FIFO (bounded at admission); the judge is thread-safe and stays warm."""

    def __init__(self, task: Callable[[str, threading.Event], None], workers: int):
        self.task = task  # task(submission_id, cancel): setting `cancel` stops that judgement
        self._waiting: deque[str] = deque()
        self._running: dict[str, threading.Event] = {}
        self._cond = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._loop, name=f"judge-{n}", daemon=True) for n in range(workers)]
        for thread in self._threads:
            thread.start()

    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    def alive(self) -> bool:
        """For /api/health: every judging thread is still there."""
        return all(thread.is_alive() for thread in self._threads)

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
                cancel = self._running[submission_id] = threading.Event()
            try:
                self.task(submission_id, cancel)
            finally:
                with self._cond:
                    self._running.pop(submission_id, None)

    def cancel(self, submission_id: str) -> None:
        with self._cond:
            if submission_id in self._waiting:
                self._waiting.remove(submission_id)
            if submission_id in self._running:
                self._running[submission_id].set()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)
