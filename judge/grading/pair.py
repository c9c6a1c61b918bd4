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
from typing import TypeVar

from judge.grading.judgement import Judgement
from judge.grading.started import PairResult, StartedPair, start_pair
from judge.runners import Runner, WorkerLaunch
from judge.settings import Settings
from sandbox import JobSpec, ZygoteClient
from sandbox.host import LAYERS

__all__ = ["PairResult", "StartedPair", "launch", "run_pair", "skipped_layers", "start_pair"]

T = TypeVar("T")


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
    return start_pair(runner, checker_zygote, worker, checker).finish(read, cancel, worker_grace_s)


def skipped_layers(settings: Settings) -> list[str]:
    """isolation="none" keeps only what protects the host's own resources (limits), for debugging."""
    if settings.isolation == "none":
        return [name for name in LAYERS if name not in ("memory", "pids", "cpu", "rlimits")]
    return []
