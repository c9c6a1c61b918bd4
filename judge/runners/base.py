"""The runner seam: what grading asks of a runner (WorkerLaunch), what a runner allows (RunnerPolicy), the handle."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from judge.wire.jobs import PROBES_FILE, SOLUTION_FILE, STACK_MARGIN_S, WorkerPayload
from sandbox import JobFacts, JobSpec
from sandbox.client import Job, ZygoteDied

WORKER_TARGET = "judge.worker.main:serve"
JOB_BOUND_S = 600.0  # the longest a runner waits for a job's end when its caller gives no limit
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
# What a job's first torch.compile (aot_eager) and opcheck import: about 680 modules (aot_autograd, the
# partitioner, inductor's compile_fx, sympy's combinatorics) that every probe that compiles would otherwise
# import again in each forked worker (about 1 s of a warm judgement here). Imports only: no thread starts.
COMPILE_IMPORTS = [
    "torch._dynamo.backends.debugging",
    "torch._functorch.aot_autograd",
    "torch._functorch.partitioners",
    "functorch.compile",
    "torch._inductor.compile_fx",
    "torch._subclasses.schema_check_mode",
    "sympy.combinatorics",
]
WORKER_PRELOAD = [
    "torch",
    "torch._dynamo",
    *PROBE_IMPORTS,
    *COMPILE_IMPORTS,
    "judge.wire.channel",
    "judge.worker.main",
    "judge.worker.observe",
    "judge.worker.opobserve",  # what probes observe for opcheck (judge/checker/opchecks.py decides)
    "judge.worker.warmup",  # last: runs the first custom-op, fake, AOT and compile calls once, in the zygote
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
    # A GPU runner's jobs (gpu_policy below): the NVIDIA device nodes open read-write under Landlock, no
    # address-space rlimit (memory is bounded by a cgroup or the container), a canary before it is trusted.
    gpu: bool = False
    devices_rw: tuple[str, ...] = ()


# The NVIDIA device nodes a CUDA process opens: the GPUs, the control node, unified memory (and its tools).
GPU_DEVICE_NODES = ("/dev/nvidia[0-9]*", "/dev/nvidiactl", "/dev/nvidia-uvm*", "/dev/nvidia-modeset")
# The share of its GPU's memory one job may hold (torch's caching allocator; set before the learner's import).
GPU_MEMORY_FRACTION = 0.9
GPU_MEMORY_ENV = "PRACTICE_GPU_MEMORY_FRACTION"


def gpu_policy(skip_layers: tuple[str, ...] = (), env: dict[str, str] | None = None) -> RunnerPolicy:
    """The policy of a GPU runner, local or in a container.

    Triton (the pinned 3.9) builds one helper module, cuda_utils with its generic kernel launcher, from C at
    run time and loads it from its cache in the job's scratch: a GPU job's scratch must allow exec (see the
    Dockerfile's gpu-runner target). Kernels themselves are loaded from memory by the CUDA driver.
    """
    return RunnerPolicy(
        native_code=True,
        skip_layers=skip_layers,
        env={GPU_MEMORY_ENV: str(GPU_MEMORY_FRACTION), **(env or {})},
        gpu=True,
        devices_rw=GPU_DEVICE_NODES,
    )


@dataclass(frozen=True)
class WorkerLaunch:
    """Everything a runner needs to start one judgement's worker. Paths are on the judge's host."""

    source: str  # the learner's file, already checked (size, encoding)
    probes_path: Path | None  # the problem's tests/probes.py, copied next to the solution (None: no probes)
    display_name: str  # the learner's file name, as tracebacks and messages show it
    wall_s: float
    memory_bytes: int
    output_bytes: int
    threads: int = 1
    env: dict[str, str] = field(default_factory=dict)  # e.g. TRITON_INTERPRET=1 for a CPU tier
    hide: tuple[str, ...] = ()  # host paths the worker must not see (the problems folder)
    skip_layers: tuple[str, ...] = ()  # layers the caller turns off (isolation="none")
    target: str = WORKER_TARGET  # what the job runs: the worker, or a trusted check (judge.runners.canary)
    payload: dict[str, str] = field(default_factory=dict)  # the target's payload, beside the files' paths
    full_table_check: bool = False  # the worker compares the whole dispatcher table at its end (judge.worker.main)
    # A parked worker (judge.grading.parking): started with no learner's file (source and display_name empty),
    # waiting up to this long for it; its time limit counts from its work's arrival. 0: an ordinary worker.
    parked_s: float = 0.0


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
        self.bound_s = JOB_BOUND_S  # no wait on a zygote is endless: the runner sets the job's limit plus grace

    def wait(self, timeout: float | None = None) -> JobFacts | None:
        """The facts, or None after `timeout`; with no timeout, the job's bound, past which the runner is at fault."""
        if self._job is None:
            raise ZygoteDied("the job was never started")
        facts = self._job.wait(self.bound_s if timeout is None else timeout)
        if facts is None and timeout is None:
            self._job.kill()
            raise ZygoteDied(f"the runner did not report the job's end within {self.bound_s:.0f}s")
        if facts is not None:
            for name, how in self.walls.items():
                if facts.layers.get(name) != "active":
                    facts.layers[name] = how
        return facts

    def kill(self) -> None:
        if self._job is not None:
            self._job.kill()

    @property
    def ended(self) -> bool:
        return self._job is None or self._job.ended

    @property
    def pid(self) -> int | None:
        """The job's first process, as its zygote's host sees it (None: not started)."""
        return self._job.pid if self._job is not None else None

    def restart_clock(self) -> None:
        """A parked worker has its work: its time limit counts from now (sandbox JobSpec.parked_s)."""
        if self._job is None:
            raise ZygoteDied("the job was never started")
        self._job.restart_clock()

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
    if launch.probes_path is not None:
        shutil.copy(launch.probes_path, scratch / PROBES_FILE)


def worker_spec(
    launch: WorkerLaunch,
    policy: RunnerPolicy,
    workdir: str,
    files_at: str | None = None,
    env: dict[str, str] | None = None,
) -> JobSpec:
    """The sandbox job for a worker whose scratch folder is `workdir` as the runner's zygote sees it.

    files_at: where the solution and probes are, if not in the scratch (a container's read-only inbox).
    env: the slot's own environment (CUDA_VISIBLE_DEVICES of a local GPU slot)."""
    return JobSpec(
        target=launch.target,
        wall_s=launch.wall_s,
        memory_bytes=launch.memory_bytes,
        output_bytes=launch.output_bytes,
        workdir=workdir,
        isolate=True,
        threads=launch.threads,
        hide=list(launch.hide),
        skip=sorted(set(launch.skip_layers) | set(policy.skip_layers)),
        scratch_exec=policy.native_code,
        env={**policy.env, **(env or {}), **launch.env},
        devices_rw=list(policy.devices_rw),
        address_space_limit=not policy.gpu,
        stack=launch.target == WORKER_TARGET,  # the worker's stack at its time limit (judge.worker.main)
        parked_s=launch.parked_s,
        payload={
            **WorkerPayload(
                launch.display_name,
                files_at or "",
                stack_after_s=max(launch.wall_s - STACK_MARGIN_S, 0.0),
                full_table_check=launch.full_table_check,
                parked=launch.parked_s > 0,
            ).to_wire(),
            **launch.payload,
        },
    )
