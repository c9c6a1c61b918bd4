"""Settings for every entry point, read from the environment (prefix PRACTICE_) when built."""

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from judge.report.i18n import Lang

REPO_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRACTICE_")

    problems_dir: Path = Field(REPO_ROOT / "problems", description="Folder holding one folder per exercise.")
    solutions_dir: Path = Field(REPO_ROOT / "practice" / "solutions", description="Learners' own files.")
    max_source_bytes: int = Field(1024 * 1024, description="Hard cap on any submitted file, before per-problem limits.")
    worker_threads: int = Field(1, ge=1, description="torch threads inside each worker.")
    run_workers: int = Field(
        2,
        ge=1,
        description="Worker/checker pairs a Run's tests are split over, judging at once, while this judge has no "
        "other judgement in flight (at most one per CPU core; 1: never split). Submit never splits.",
    )
    zygotes: bool = Field(True, description="Fork checkers and workers from warm parents (False: spawn fresh).")
    park: bool = Field(
        True,
        description="After a Run, start the next Run's worker/checker pairs and keep them waiting for the learner's "
        "file (judge.grading.parking): the next Run skips their start. False: every Run starts its own.",
    )
    lang: Lang = Field("zh", description="Language of everything a learner reads: 'zh' (the handbook's) or 'en'.")
    isolation: Literal["auto", "none"] = Field(
        "auto", description="'auto': every isolation layer the host offers; 'none': only resource limits (debugging)."
    )
    sandbox: Literal["auto", "local", "docker"] = Field(
        "auto", description="Where CPU work runs: 'local' zygotes, or 'docker' (the CPU runner image); 'auto' is local."
    )
    gpu_runner: Literal["", "local", "docker"] = Field(
        "",
        description="Where GPU-tier cases run: '' nowhere (they are skipped), 'local' (this host has CUDA), "
        "'docker' (the GPU runner image on DOCKER_HOST, one container per device in gpu_devices).",
    )
    gpu_devices: list[str] = Field(["0"], description="GPUs the docker GPU runner uses, one container each.")
    docker_image: str = Field("", description="CPU runner image; '' is the newest one `judge image build` made.")
    gpu_image: str = Field("practice-judge:gpu-runner", description="GPU runner image (Dockerfile target gpu-runner).")
    docker_slots: int = Field(1, ge=1, description="CPU runner containers (each judges one submission at a time).")
    docker_memory_mib: int = Field(4096, gt=0, description="Memory of each runner container (zygote plus one job).")
    # The learner's warm local judge (judge/cli/daemon.py); none of these changes a verdict.
    daemon: bool = Field(True, description="The CLI judges through a warm judge process of the learner's own.")
    daemon_idle: float = Field(900, gt=0, description="Seconds the warm local judge waits idle before it ends.")
    daemon_dir: Path | None = Field(
        None, description="Folder of its socket (default: $XDG_RUNTIME_DIR, else a private folder under /tmp)."
    )
