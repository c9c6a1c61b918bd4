"""One real server (uvicorn on a loopback port, a subprocess like `judge serve`) and one browser for all web tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).parent / "artifacts"  # screenshots (git-ignored)
FIXTURES = REPO / "tests" / "fixtures" / "problems"


SERVE = "import sys; from judge.cli.subcommands import dispatch; sys.exit(dispatch(sys.argv[1:]))"  # = `judge serve`


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`judge serve` in its own process group (its zygotes go with it when it is killed)."""

    def __init__(self, data_dir: Path, **env: str):
        self.port, self.data_dir = free_port(), data_dir
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PRACTICE_DATA_DIR": str(data_dir), **env}
        self.log = data_dir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", SERVE, "serve", "--port", str(self.port), "--log-level", "warning"],
                cwd=REPO,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/api/problems", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("server did not start in 60 s")

    def kill(self) -> None:
        """SIGKILL the whole process group: the server and its judging processes, mid-whatever."""
        assert self.proc is not None, "kill() before start()"
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="session")
def server():
    with tempfile.TemporaryDirectory(prefix="practice-web-") as data:
        srv = Server(Path(data), PRACTICE_WORKERS="2").start()
        try:
            yield srv
        finally:
            srv.stop()


@pytest.fixture(scope="session")
def fixture_server():
    """A second server on the tiny fixture exercises (900: a 6 s limit), for timeouts and Cancel."""
    with tempfile.TemporaryDirectory(prefix="practice-web-fixture-") as data:
        srv = Server(Path(data), PRACTICE_WORKERS="1", PRACTICE_PROBLEMS_DIR=str(FIXTURES)).start()
        try:
            yield srv
        finally:
            srv.stop()


@pytest.fixture()
def client(server):
    """A fresh learner (no cookie yet) talking to the shared server."""
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c
