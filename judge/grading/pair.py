"""One worker and its checker job: started on a socket pair, its events read, cancel kept, both ended and closed.

Every pass that asks a file something runs through here: a judgement's passes and the shards of a split Run
(judge.grading.passes), the trace pass on the learner's file and on the reference (judge.grading.tracing). The
worker gets one end of a socket pair (the probe channel), the checker the other and an events socket, which
`read` consumes until the checker closes it. The sandbox keeps each job's own time limit; `cancel` kills both at
once; a worker that has not ended `worker_grace_s` after its checker is killed, so no pair outlives its pass.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Generic, TypeVar

from judge.grading.judgement import Judgement
from judge.runners import Runner, WorkerLaunch
from judge.runners.base import WorkerRun
from judge.settings import Settings
from sandbox import JobFacts, JobSpec, ZygoteClient
from sandbox.client import Job, ZygoteDied
from sandbox.host import LAYERS

T = TypeVar("T")


@dataclass(frozen=True)
class PairResult(Generic[T]):
    read: T  # what `read` made of the checker's events
    checker: JobFacts | None  # the checker's facts (None: its zygote never reported its end)
    worker: JobFacts


def launch(judgement: Judgement, settings: Settings, env: dict[str, str], wall_s: float | None = None) -> WorkerLaunch:
    """The worker of `judgement` under the problem's limits (or `wall_s`), in the pass's environment."""
    limits = judgement.limits
    problem = judgement.problem
    return WorkerLaunch(
        source=judgement.source,
        probes_path=problem.probes_path,
        display_name=judgement.display_name,
        wall_s=limits.wall_s if wall_s is None else wall_s,
        memory_bytes=limits.memory_mib << 20,
        output_bytes=limits.output_kib << 10,
        threads=settings.worker_threads,
        env=dict(env),
        hide=(str(problem.root.parent),),
        skip_layers=tuple(skipped_layers(settings)),
        full_table_check=judgement.mode == "submit",  # a Submit's verdict is the one that counts: every kernel
    )


def run_pair(
    runner: Runner,
    checker_zygote: ZygoteClient,
    worker: WorkerLaunch,
    checker: JobSpec,
    read: Callable[[socket.socket], T],
    cancel: threading.Event | None = None,
    worker_grace_s: float = 10.0,
) -> PairResult[T]:
    """Start the worker, then its checker on the other end of the channel; read the checker's events with `read`;
    wait for both. A fault of the judge's own (a zygote that died) raises; the caller decides what it means."""
    with ExitStack() as stack:
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
        ended = _kill_on(cancel, started, job)
        stack.callback(ended.set)
        got = read(events_in)
        events_in.close()
        checker_facts = job.wait()
        worker_facts = started.wait(timeout=worker_grace_s) or _kill_and_wait(started)
        return PairResult(got, checker_facts, worker_facts)
    raise AssertionError("unreachable")  # for the type checker: ExitStack may swallow exceptions in its eyes


def skipped_layers(settings: Settings) -> list[str]:
    """isolation="none" keeps only what protects the host's own resources (limits), for debugging."""
    if settings.isolation == "none":
        return [name for name in LAYERS if name not in ("memory", "pids", "cpu", "rlimits")]
    return []


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
