"""The GPU container's walls between jobs, and its runner's survival, on a docker engine (the CPU image stands in).

The walls (ContainerSpec.walls) need no GPU: a root zygote in the container, each job as uid 65534 in
namespaces of its own, leftovers gone before the next job. The last test needs a GPU and the gpu-runner image.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from judge.runners import docker as docker_runners
from judge.runners.base import RunnerPolicy, WorkerLaunch
from judge.runners.docker import GPU_WALLS, DockerRunner
from sandbox.client import ZygoteDied
from sandbox.docker import ContainerSpec

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]
WALLED = RunnerPolicy(native_code=False, skip_layers=("mount",))  # the GPU policy's layers, without the GPU


def _look(runner: DockerRunner, **payload: str) -> dict:
    from judge.runners import walls_jobs

    ours, theirs = socket.socketpair()
    run = runner.start(
        WorkerLaunch(
            source="",
            probes_path=None,
            display_name="walls.py",
            wall_s=30,
            memory_bytes=1 << 30,
            output_bytes=1 << 16,
            target="judge.runners.walls_jobs:look",
            payload=payload,
        ),
        theirs.fileno(),
    )
    theirs.close()
    try:
        facts = run.wait(60)
    finally:
        run.close()
        ours.close()
    assert facts is not None and facts.exit_code == 0, facts.output_tail if facts else "did not finish"
    import json

    (line,) = [x for x in facts.output_tail.splitlines() if x.startswith(walls_jobs.MARK)]
    return {**json.loads(line[len(walls_jobs.MARK) :]), "layers": facts.layers}


@pytest.fixture(scope="module")
def walled_runner(runner_image):
    runner = DockerRunner("walls", [ContainerSpec(image=runner_image, preload=(), walls=True, name="walls0")], WALLED)
    runner.walls = GPU_WALLS
    yield runner
    runner.close()


def test_each_job_has_its_own_uid_and_pid_namespace_and_cannot_signal_the_zygote(walled_runner):
    first = _look(walled_runner, leave="1")
    assert first["uid"] == 65534, first  # not the zygote's (root in the container)
    assert first["pid"] == 2 and first["ppid"] == 1, first  # pid 2 of its own namespace, under its own init
    assert first["signal_1"] == "PermissionError", first
    layers = first["layers"]
    assert layers["uid"] == layers["pid"] == layers["ipc"] == "active", layers
    assert layers["mount"].startswith("active (container"), layers


def test_nothing_of_a_job_survives_into_the_next(walled_runner):
    _look(walled_runner, leave="1")  # leaves files in /tmp and /dev/shm and an escaped sleeping child
    after = _look(walled_runner)
    assert "left-by-a-job" not in after["tmp"] and "left-by-a-job" not in after["shm"], after
    assert after["sleepers"] == 0, after
    assert after["sysv_shm"] in (0, "unreadable"), after


def test_a_container_that_fails_to_start_is_retried_and_keeps_its_slot(docker_host, monkeypatch):
    monkeypatch.setattr(docker_runners, "START_BACKOFF_S", (0.01, 0.01))
    runner = DockerRunner("broken", [ContainerSpec(image="practice-judge/absent:none", preload=(), name="b0")], WALLED)
    try:
        launch = WorkerLaunch(
            source="", probes_path=None, display_name="x.py", wall_s=5, memory_bytes=1 << 30, output_bytes=1 << 10
        )
        for _ in range(2):  # each try fails with the reason, and never waits for a slot that was lost
            with pytest.raises(ZygoteDied, match="did not start after 2 tries"):
                runner.start(launch, -1)
            assert runner._free.qsize() == 1
    finally:
        runner.close()


@pytest.mark.gpu
def test_gpu_docker_judges_107_through_both_tiers(docker_host):
    """Runs where there is a GPU and the gpu-runner image (bench/gpu_check.sh prepare); skips elsewhere."""
    if not any(name.startswith("nvidia") and name[6:].isdigit() for name in os.listdir("/dev")):
        pytest.skip("no NVIDIA GPU on this host")
    import docker
    from judge import Judge, Verdict
    from judge.settings import Settings

    settings = Settings(gpu_runner="docker")
    try:
        docker.from_env().images.get(settings.gpu_image)
    except docker.errors.ImageNotFound:
        pytest.skip(f"no {settings.gpu_image} image: bash bench/gpu_check.sh prepare")
    problem = next(Path(__file__).resolve().parents[2].glob("problems/107-*"))
    with Judge(settings) as judge:
        report = judge.grade("107", (problem / "solutions" / "reference.py").read_text())
    assert report.verdict == Verdict.accepted, report.detail[-2000:]
    assert report.tiers == {"cpu": "ran", "gpu": "ran"} and report.tier_layers["gpu"]["landlock"] == "active"
