"""The container runner: workers in long-lived containers (sandbox.docker), one judgement per container at a time."""

from __future__ import annotations

import queue
import threading

from judge.runners.base import WORKER_PRELOAD, RunnerPolicy, WorkerLaunch, WorkerRun, worker_spec, write_scratch
from judge.settings import Settings
from sandbox.docker import ROLE_LABEL, ContainerSpec, ContainerZygote, client, describe_host

# A CPU container: scratch is a noexec tmpfs, as on the local runner.
CPU_POLICY = RunnerPolicy(native_code=False)
# A GPU container: Triton compiles its launcher and kernels into the scratch cache and loads them, so the
# scratch must allow native code; Landlock would refuse opening /dev/nvidia* read-write (its writable
# devices are /dev/null, /dev/zero, /dev/full), so the container's own walls stand in for it.
GPU_POLICY = RunnerPolicy(native_code=True, skip_layers=("landlock",))
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


class DockerRunner:
    def __init__(self, name: str, specs: list[ContainerSpec], policy: RunnerPolicy):
        self.name, self.policy, self.specs = name, policy, specs
        self.docker = client()
        self._free: queue.Queue[ContainerZygote] = queue.Queue()
        self._all: list[ContainerZygote] = []
        self._lock = threading.Lock()
        for spec in specs:
            self._free.put(self._started(spec))

    def _started(self, spec: ContainerSpec) -> ContainerZygote:
        zygote = ContainerZygote(spec, self.docker).start()
        with self._lock:
            self._all.append(zygote)
        return zygote

    @property
    def alive(self) -> bool:
        return True  # a dead container is replaced when its slot is next taken

    def start(self, launch: WorkerLaunch, channel_fd: int) -> WorkerRun:
        zygote = self._free.get()
        if not zygote.alive:
            zygote.close()
            zygote = self._started(zygote.spec)
        inbox, seen_as = zygote.new_inbox()
        run = WorkerRun(None, inbox, lambda: self._free.put(zygote), WALLS)
        try:
            write_scratch(inbox, launch)
            run._job = zygote.run(worker_spec(launch, self.policy, seen_as), [channel_fd])
        except BaseException:
            run.close()
            raise
        return run

    def describe(self) -> str:
        spec = self.specs[0]
        where = f"GPUs {', '.join(s.gpu for s in self.specs)}" if spec.gpu else f"{len(self.specs)} CPU slot(s)"
        return f"docker: image {spec.image}, {where}, on {describe_host()}"

    def close(self) -> None:
        with self._lock:
            zygotes, self._all = self._all, []
        for zygote in zygotes:
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
            scratch_exec=True,
            memory_bytes=settings.docker_memory_mib << 20,
            scratch_bytes=2 << 30,
            name=f"gpu{device}",
        )
        for device in settings.gpu_devices
    ]
    return DockerRunner("gpu-docker", specs, GPU_POLICY)
