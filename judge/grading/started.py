"""A worker and its checker, started on a socket pair and not yet finished (judge.grading.pair runs one at once;
judge.grading.parking starts one ahead of its judgement)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Generic, TypeVar

from judge.runners import Runner, WorkerLaunch
from judge.runners.base import WorkerRun
from sandbox import JobFacts, JobSpec, ZygoteClient
from sandbox.client import Job, ZygoteDied

T = TypeVar("T")


@dataclass(frozen=True)
class PairResult(Generic[T]):
    read: T  # what `read` made of the checker's events
    checker: JobFacts | None  # the checker's facts (None: its zygote never reported its end)
    worker: JobFacts


class StartedPair:
    """A worker and its checker, started on a socket pair; `finish` reads the checker's events and ends both. A
    parked pair (judge.grading.parking) is started long before its finish; `close` ends one that is never used."""

    def __init__(self, stack: ExitStack, worker: WorkerRun, checker: Job, events: socket.socket):
        self._stack, self.worker, self.checker, self.events = stack, worker, checker, events

    def finish(
        self, read: Callable[[socket.socket], T], cancel: threading.Event | None = None, worker_grace_s: float = 10.0
    ) -> PairResult[T]:
        with self._stack:
            ended = _kill_on(cancel, self.worker, self.checker)
            self._stack.callback(ended.set)
            got = read(self.events)
            self.events.close()
            checker_facts = self.checker.wait()
            worker_facts = self.worker.wait(timeout=worker_grace_s) or _kill_and_wait(self.worker)
            return PairResult(got, checker_facts, worker_facts)
        raise AssertionError("unreachable")  # for the type checker: ExitStack may swallow exceptions in its eyes

    def alive(self) -> bool:
        return not self.worker.ended and not self.checker.ended

    def close(self) -> None:
        """Kill both and free what they hold (their facts are nobody's)."""
        with self._stack:
            self.worker.kill()
            self.checker.kill()


def start_pair(runner: Runner, checker_zygote: ZygoteClient, worker: WorkerLaunch, checker: JobSpec) -> StartedPair:
    """The worker started through its runner, then its checker on the other end of the channel."""
    stack = ExitStack()
    with stack:
        checker_end, worker_end = socket.socketpair()
        events_in, events_out = socket.socketpair()
        for sock in (checker_end, worker_end, events_in, events_out):
            stack.callback(sock.close)
        started = runner.start(worker, worker_end.fileno())
        stack.callback(started.close)
        worker_end.close()
        job = checker_zygote.run(checker, [checker_end.fileno(), events_out.fileno()])
        checker_end.close()
        events_out.close()
        return StartedPair(stack.pop_all(), started, job, events_in)
    raise AssertionError("unreachable")


def _kill_on(cancel: threading.Event | None, *jobs: Job | WorkerRun) -> threading.Event:
    """Kill the jobs as soon as `cancel` is set, until the returned event ends the watch (the pass is over)."""
    ended = threading.Event()
    if cancel is not None:

        def watch() -> None:
            while not ended.is_set():
                if cancel.wait(0.2):
                    for job in jobs:
                        job.kill()
                    return

        threading.Thread(target=watch, name="judge-cancel", daemon=True).start()
    return ended


def _kill_and_wait(job: WorkerRun) -> JobFacts:
    job.kill()
    facts = job.wait()
    if facts is None:  # not without a timeout: WorkerRun.wait raises past its bound instead
        raise ZygoteDied("the worker was killed and its end never reported")
    return facts
