"""Build the runner a tier plan names (judge.runners.plan); the container runners import the docker SDK lazily."""

from __future__ import annotations

from judge.runners.base import Runner
from judge.runners.local import GPU_LOCAL_POLICY, LocalRunner
from judge.runners.plan import DOCKER, GPU_DOCKER, GPU_LOCAL, LOCAL
from judge.settings import Settings
from sandbox import ZygoteClient

KEYS = (LOCAL, DOCKER, GPU_LOCAL, GPU_DOCKER)


def make_runner(key: str, settings: Settings, worker_zygote: ZygoteClient) -> Runner:
    """local and gpu-local share the warm local worker zygote (CUDA is never initialised in it)."""
    if key == LOCAL:
        return LocalRunner(worker_zygote, name=key)
    if key == GPU_LOCAL:
        return LocalRunner(worker_zygote, GPU_LOCAL_POLICY, key, gpu_slots=list(settings.gpu_devices))
    if key == DOCKER:
        from judge.runners.docker import cpu_runner  # noqa: PLC0415 - docker SDK only when asked for

        return cpu_runner(settings)
    if key == GPU_DOCKER:
        from judge.runners.docker import gpu_runner  # noqa: PLC0415

        return gpu_runner(settings)
    raise ValueError(f"unknown runner {key!r} (one of {', '.join(KEYS)})")
