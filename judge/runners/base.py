"""The runner seam: what grading asks of a runner (WorkerLaunch), what a runner allows (RunnerPolicy), the handle."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from judge.jobs import PROBES_FILE, SOLUTION_FILE, WorkerPayload
from sandbox import JobFacts, JobSpec
from sandbox.client import Job

WORKER_TARGET = "judge.worker.main:serve"
# What the problems' probes import (torch's testing and tracing helpers): trusted torch code, imported
# once in the zygote instead of once per job (about 0.25 s each time here).
PROBE_IMPORTS = [
    "torch.library",
    "torch.testing._internal.optests",
    "torch._subclasses.fake_tensor",
    "torch.autograd.gradcheck",
    "torch._dynamo.testing",
    "torch.fx.experimental.symbolic_shapes",
    "torch.utils._python_dispatch",
]
WORKER_PRELOAD = [
    "torch",
    "torch._dynamo",
    *PROBE_IMPORTS,
    "judge.channel",
    "judge.worker.main",
    "judge.worker.observe",
]  # one preload list for every worker zygote, local or in a container


@dataclass(frozen=True)
class RunnerPolicy:
    """What a runner lets the learner's worker do; grading reads it instead of holding constants of its own."""

    # No native code of the learner's own: a library it compiled and loaded would run below the worker's
    # guard (judge/worker/guard.py), so scratch is noexec. Probes compile with aot_eager, which writes no code.
    native_code: bool = False
    # Isolation layers this runner does not apply (a container has its own walls instead of namespaces).
    skip_layers: tuple[str, ...] = ()
    # Extra environment of every worker this runner starts (e.g. which GPU the container sees).
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkerLaunch:
    """Everything a runner needs to start one judgement's worker. Paths are on the judge's host."""

    source: str  # the learner's file, already checked (size, encoding)
    probes_path: Path  # the problem's tests/probes.py, copied next to the solution
    display_name: str  # the learner's file name, as tracebacks and messages show it
    wall_s: float
    memory_bytes: int
    output_bytes: int
    threads: int = 1
    env: dict[str, str] = field(default_factory=dict)  # e.g. TRITON_INTERPRET=1 for a CPU tier
    hide: tuple[str, ...] = ()  # host paths the worker must not see (the problems folder)
    skip_layers: tuple[str, ...] = ()  # layers the caller turns off (isolation="none")


class WorkerRun:
    """One started worker: wait for its facts, kill it; close() removes its scratch and frees the runner's slot."""

    def __init__(
        self,
        job: Job | None,
        scratch: Path,
        release: Callable[[], None] = lambda: None,
        walls: dict[str, str] | None = None,
    ):
        self._job, self.scratch, self._release = job, scratch, release
        self.walls = walls or {}  # layers the runner provides itself (a container's), reported with the job's own

    def wait(self, timeout: float | None = None) -> JobFacts | None:
        facts = self._job.wait(timeout)
        if facts is not None:
            for name, how in self.walls.items():
                if facts.layers.get(name) != "active":
                    facts.layers[name] = how
        return facts

    def kill(self) -> None:
        self._job.kill()

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
        release, self._release = self._release, lambda: None
        release()


class Runner(Protocol):
    """Starts workers; a runner is long-lived (warm zygotes, containers) and shared by judgements."""

    name: str
    policy: RunnerPolicy

    @property
    def alive(self) -> bool: ...

    def start(self, launch: WorkerLaunch, channel_fd: int) -> WorkerRun: ...

    def describe(self) -> str: ...

    def close(self) -> None: ...


def write_scratch(scratch: Path, launch: WorkerLaunch) -> None:
    (scratch / SOLUTION_FILE).write_text(launch.source, encoding="utf-8")
    shutil.copy(launch.probes_path, scratch / PROBES_FILE)


def worker_spec(launch: WorkerLaunch, policy: RunnerPolicy, workdir: str) -> JobSpec:
    """The sandbox job for a worker whose scratch folder is `workdir` as the runner's zygote sees it."""
    return JobSpec(
        target=WORKER_TARGET,
        wall_s=launch.wall_s,
        memory_bytes=launch.memory_bytes,
        output_bytes=launch.output_bytes,
        workdir=workdir,
        isolate=True,
        threads=launch.threads,
        hide=list(launch.hide),
        skip=sorted(set(launch.skip_layers) | set(policy.skip_layers)),
        scratch_exec=policy.native_code,
        env={**policy.env, **launch.env},
        payload=WorkerPayload(launch.display_name).to_wire(),
    )
