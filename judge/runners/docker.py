"""The container runner: workers in long-lived containers (sandbox.docker), one judgement per container at a time."""

from __future__ import annotations

import queue
import time

from judge.runners.base import (
    WORKER_PRELOAD,
    RunnerPolicy,
    WorkerLaunch,
    WorkerRun,
    gpu_policy,
    worker_spec,
    write_scratch,
)
from judge.settings import Settings
from sandbox.client import ZygoteDied
from sandbox.docker import ROLE_LABEL, ContainerSpec, ContainerZygote, client, describe_host

# A CPU container: scratch is a noexec tmpfs, as on the local runner.
CPU_POLICY = RunnerPolicy(native_code=False)
# A GPU container (its own GPU policy, judge.runners.base.gpu_policy): Landlock kept with the NVIDIA device
# nodes, exec scratch for Triton's cuda_utils, no address-space rlimit (the container's memory limit bounds
# the job). The container gives each job a uid and pid, ipc, uts and network namespaces of its own
# (ContainerSpec.walls); a mount namespace it cannot (the engine's profile refuses mount), so none is asked for.
GPU_POLICY = gpu_policy(skip_layers=("mount",))
CPU_IMAGE_LABEL = "runner-cpu"
# What the container itself provides where the per-job layers need root (reported as "active (...)").
WALLS = {
    "network": "active (container: no network)",
    "uid": "active (container: user 10001, no capabilities)",
    "mount": "active (container: read-only root, tmpfs scratch)",
    "pid": "active (container pid namespace: one job at a time, its leftovers killed)",
    "ipc": "active (container ipc namespace)",
    "uts": "active (container uts namespace)",
    "pids": "active (container pids limit)",
}
# A GPU container's: only what it adds; a per-job layer that did not apply is reported as it is.
GPU_WALLS = {
    "network": "active (container: no network)",
    "mount": "active (container: read-only root; /tmp and /dev/shm emptied after each job)",
    "memory": "active (container memory limit; no address-space rlimit on GPU jobs)",
    "pids": "active (container pids limit)",
}
START_BACKOFF_S = (1.0, 2.0, 4.0)  # a container that fails to start is tried again after each pause
SLOT_WAIT_S = 600.0  # a judgement waits at most this long for a free container


class Slot:
    """One container's place in the runner: it stays when its container dies or fails to start."""

    def __init__(self, spec: ContainerSpec):
        self.spec = spec
        self.zygote: ContainerZygote | None = None


class DockerRunner:
    def __init__(
        self, name: str, specs: list[ContainerSpec], policy: RunnerPolicy, walls: dict[str, str] | None = None
    ):
        self.name, self.policy, self.specs = name, policy, specs
        self.walls = WALLS if walls is None else walls
        self.docker = client()
        self._free: queue.Queue[Slot] = queue.Queue()
        self._slots = [Slot(spec) for spec in specs]
        self._closed = False
        for slot in self._slots:
            try:
                self._ready(slot)  # warm now; a container that will not start is tried again when next taken
            except ZygoteDied:
                pass
            self._free.put(slot)

    def _new_zygote(self, spec: ContainerSpec) -> ContainerZygote:
        zygote = ContainerZygote(spec, self.docker)
        try:
            return zygote.start()
        except BaseException:
            zygote.close()  # its container and its folders on this host
            raise

    def _ready(self, slot: Slot) -> ContainerZygote:
        """The slot's container, healthy: checked between jobs, replaced (with backoff) when it is not."""
        problem = slot.zygote.healthy() if slot.zygote is not None else "not started"
        if slot.zygote is not None and not problem:
            return slot.zygote
        if slot.zygote is not None:
            slot.zygote.close()
            slot.zygote = None
        for attempt, pause in enumerate(START_BACKOFF_S):
            try:
                slot.zygote = self._new_zygote(slot.spec)
                return slot.zygote
            except Exception as exc:  # noqa: BLE001 - the engine, the image or the toolkit: retried, then reported
                problem = f"{type(exc).__name__}: {exc}"
                if attempt + 1 < len(START_BACKOFF_S):
                    time.sleep(pause)
        raise ZygoteDied(f"container {slot.spec.name} did not start after {len(START_BACKOFF_S)} tries: {problem}")

    @property
    def alive(self) -> bool:
        return not self._closed  # a dead container is replaced when its slot is next taken

    def start(self, launch: WorkerLaunch, channel_fd: int) -> WorkerRun:
        try:
            slot = self._free.get(timeout=SLOT_WAIT_S)
        except queue.Empty:
            raise ZygoteDied(f"no container of {self.name} was free for {SLOT_WAIT_S:.0f}s") from None
        try:
            zygote = self._ready(slot)
        except BaseException:
            self._free.put(slot)  # the slot is never lost: the next judgement tries its container again
            raise
        inbox, seen_as = zygote.new_inbox()
        run = WorkerRun(None, inbox, lambda: self._free.put(slot), self.walls)
        run.bound_s = launch.wall_s + 60
        try:
            write_scratch(inbox, launch)
            run._job = zygote.run(worker_spec(launch, self.policy, seen_as), [channel_fd])
        except BaseException:
            run.close()
            raise
        return run

    def describe(self) -> str:
        spec = self.specs[0]
        where = f"GPUs {', '.join(str(s.gpu) for s in self.specs)}" if spec.gpu else f"{len(self.specs)} CPU slot(s)"
        return f"docker: image {spec.image}, {where}, on {describe_host()}"

    def close(self) -> None:
        self._closed = True
        for slot in self._slots:
            zygote, slot.zygote = slot.zygote, None
            if zygote is not None:
                zygote.close()


def newest_cpu_image() -> str:
    """The CPU runner image `judge image build` made last (by label), or a clear error."""
    images = client().images.list(filters={"label": f"{ROLE_LABEL}={CPU_IMAGE_LABEL}"})
    if not images:
        raise RuntimeError("no CPU runner image: run `judge image build` (or set PRACTICE_DOCKER_IMAGE)")
    return max(images, key=lambda image: image.attrs["Created"]).tags[0]


def cpu_runner(settings: Settings) -> DockerRunner:
    image = settings.docker_image or newest_cpu_image()
    specs = [
        ContainerSpec(
            image=image, preload=tuple(WORKER_PRELOAD), memory_bytes=settings.docker_memory_mib << 20, name=f"cpu{slot}"
        )
        for slot in range(settings.docker_slots)
    ]
    return DockerRunner("docker", specs, CPU_POLICY)


def gpu_runner(settings: Settings) -> DockerRunner:
    specs = [
        ContainerSpec(
            image=settings.gpu_image,
            preload=tuple(WORKER_PRELOAD),
            gpu=device,
            scratch_exec=True,  # Triton loads its cuda_utils from its cache in the job's scratch
            memory_bytes=settings.docker_memory_mib << 20,
            scratch_bytes=2 << 30,
            name=f"gpu{device}",
            walls=True,
        )
        for device in settings.gpu_devices
    ]
    return DockerRunner("gpu-docker", specs, GPU_POLICY, GPU_WALLS)
