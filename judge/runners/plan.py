"""Which runner judges which tier of a problem, and why: by the problem's `device`, overridable by settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.problem.tiers import CPU, GPU
from judge.report.models import ProblemMeta
from judge.settings import Settings

LOCAL, DOCKER, GPU_LOCAL, GPU_DOCKER = "local", "docker", "gpu-local", "gpu-docker"
GPU_RUNNERS = (GPU_LOCAL, GPU_DOCKER)  # runners that must pass their canary (judge.runners.canary) to be used
# Triton's interpreter runs @triton.jit kernels on CPU tensors; triton reads it when a kernel is defined,
# so setting it in the job's environment (before the learner's file runs) is early enough.
CPU_TIER_ENV = {"TRITON_INTERPRET": "1"}


@dataclass(frozen=True)
class Pass:
    """One worker and one checker: the runner key, the tiers whose cases run, the extra environment."""

    runner: str
    run_tiers: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TierPlan:
    passes: tuple[Pass, ...]
    skipped: tuple[str, ...]  # tiers with no runner here: their cases are reported skipped
    why: str  # for `judge doctor`


def cpu_runner(settings: Settings) -> str:
    return DOCKER if settings.sandbox == DOCKER else LOCAL


def gpu_runner(settings: Settings) -> str | None:
    return {"local": GPU_LOCAL, "docker": GPU_DOCKER}.get(settings.gpu_runner)


def plan(meta: ProblemMeta, settings: Settings) -> TierPlan:
    cpu = cpu_runner(settings)
    source = "PRACTICE_SANDBOX=docker" if cpu == DOCKER else "the default"
    if meta.device == "cpu":
        return TierPlan((Pass(cpu, (CPU, GPU)),), (), f"device=cpu: all cases on the {cpu} runner ({source})")
    gpu = gpu_runner(settings)
    cpu_pass = Pass(cpu, (CPU,), dict(CPU_TIER_ENV))
    if gpu is None:
        return TierPlan(
            (cpu_pass,),
            (GPU,),
            f"device=cuda: CPU tier on the {cpu} runner (Triton interpreter); "
            "GPU tier skipped: no GPU runner configured (PRACTICE_GPU_RUNNER)",
        )
    return TierPlan(
        (cpu_pass, Pass(gpu, (GPU,))),
        (),
        f"device=cuda: CPU tier on the {cpu} runner, GPU tier on {gpu} (PRACTICE_GPU_RUNNER)",
    )
