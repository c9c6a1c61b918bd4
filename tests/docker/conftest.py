"""One docker engine for the docker tests: DOCKER_HOST if set, else a dockerd started (and stopped) here.

The dockerd has no bridge and no iptables (no network is needed: runners run with --network none) and its
own data root, kept between runs (PRACTICE_TEST_DOCKER_ROOT) so that `judge image build` finds its images.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.needs import missing

collect_ignore_glob = ["fixtures/*"]
DOCKER_ROOT = Path(os.environ.get("PRACTICE_TEST_DOCKER_ROOT", "/var/lib/practice-judge-docker"))
EXEC_ROOT = Path("/run/pj-dockerd")  # short: dockerd's own sockets live here
START_TIMEOUT_S = 60


def _ping(host: str) -> bool:
    import docker

    try:
        docker.DockerClient(base_url=host, timeout=5).ping()
        return True
    except Exception:  # noqa: BLE001 - not up yet
        return False


def _start_dockerd() -> tuple[subprocess.Popen, str]:
    if not shutil.which("dockerd"):
        missing("no docker engine: install docker.io (apt-get install -y docker.io) or set DOCKER_HOST")
    if os.geteuid() != 0:
        missing("starting dockerd needs root; set DOCKER_HOST to an engine instead")
    for folder in (DOCKER_ROOT / "data", EXEC_ROOT):
        folder.mkdir(parents=True, exist_ok=True)
    host = f"unix://{DOCKER_ROOT}/docker.sock"
    log = open(DOCKER_ROOT / "dockerd.log", "ab")
    proc = subprocess.Popen(
        [
            "dockerd",
            "--iptables=false",
            "--ip6tables=false",
            "--bridge=none",
            "--data-root",
            str(DOCKER_ROOT / "data"),
            "--exec-root",
            str(EXEC_ROOT),
            "--pidfile",
            str(DOCKER_ROOT / "docker.pid"),
            "-H",
            host,
        ],
        stdout=log,
        stderr=log,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _ping(host):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"dockerd did not start; see {DOCKER_ROOT / 'dockerd.log'}")
        time.sleep(0.5)
    return proc, host


@pytest.fixture(scope="session")
def docker_host():
    """DOCKER_HOST for the session's docker engine (set in os.environ while the tests run)."""
    given = os.environ.get("DOCKER_HOST")
    if given:
        yield given
        return
    proc, host = _start_dockerd()
    os.environ["DOCKER_HOST"] = host
    try:
        yield host
    finally:
        os.environ.pop("DOCKER_HOST", None)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def runner_image(docker_host) -> str:
    """The CPU runner image, built once by `judge image build` (cached by content hash)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from judge.cli import main; sys.exit(main())", "image", "build"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"judge image build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    print(f"\njudge image build: {time.monotonic() - started:.0f}s\n{done.stdout}")
    return done.stdout.strip().splitlines()[-1]
