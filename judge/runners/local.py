"""The local runner: a worker forked from a warm zygote on this host; as gpu-local, one job per GPU slot."""

from __future__ import annotations

import queue
import tempfile
from pathlib import Path

from judge.runners.base import RunnerPolicy, WorkerLaunch, WorkerRun, gpu_policy, worker_spec, write_scratch
from sandbox import ZygoteClient
from sandbox.client import ZygoteDied

LOCAL_POLICY = RunnerPolicy(native_code=False)
# gpu-local: the shared worker zygote never initialises CUDA (a forked child could not use it), so its GPU
# jobs are ordinary local jobs with the GPU policy: Landlock with the device nodes, exec scratch for
# Triton's cuda_utils, memory bounded by the job's cgroup (no address-space rlimit).
GPU_LOCAL_POLICY = gpu_policy()
SLOT_WAIT_S = 600.0  # a judgement waits at most this long for a free GPU slot; then the runner is at fault


class LocalRunner:
    name = "local"

    def __init__(
        self,
        zygote: ZygoteClient,
        policy: RunnerPolicy = LOCAL_POLICY,
        name: str = "local",
        gpu_slots: list[str] | None = None,
        jobs_per_slot: int = 1,
    ):
        """gpu_slots: the devices of a GPU runner (CUDA_VISIBLE_DEVICES of each job), at most jobs_per_slot each."""
        self.zygote, self.policy, self.name = zygote, policy, name
        self.gpu_slots = list(gpu_slots or [])
        self._slots: queue.Queue[str] = queue.Queue()
        for slot in self.gpu_slots:
            for _ in range(jobs_per_slot):
                self._slots.put(slot)
        self._discarded = False

    @property
    def alive(self) -> bool:
        return self.zygote.alive and not self._discarded

    def start(self, launch: WorkerLaunch, channel_fd: int) -> WorkerRun:
        slot = self._take_slot()
        release = (lambda: self._slots.put(slot)) if slot is not None else (lambda: None)
        env = {"CUDA_VISIBLE_DEVICES": slot} if slot is not None else {}
        scratch = Path(tempfile.mkdtemp(prefix="pj-"))
        try:
            write_scratch(scratch, launch)
            job = self.zygote.run(worker_spec(launch, self.policy, str(scratch), env=env), [channel_fd])
        except BaseException:
            WorkerRun(None, scratch, release).close()
            raise
        run = WorkerRun(job, scratch, release)
        run.bound_s = launch.wall_s + 60
        return run

    def _take_slot(self) -> str | None:
        if not self.gpu_slots:
            return None
        try:
            return self._slots.get(timeout=SLOT_WAIT_S)
        except queue.Empty:
            raise ZygoteDied(f"no GPU slot of {self.name} was free for {SLOT_WAIT_S:.0f}s") from None

    def describe(self) -> str:
        if self.gpu_slots:
            return f"{self.name}: workers forked from the warm zygote on this host, GPUs {', '.join(self.gpu_slots)}"
        return "local: a worker forked from a warm zygote on this host"

    def close(self) -> None:
        """The worker zygote belongs to the judge (judge.service), shared by local and gpu-local: never closed here."""
        self._discarded = True
