"""`judge serve`, `judge worker` and `judge db upgrade` as the tests run them: own process groups, always stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.scale.servers import free_port

REPO = Path(__file__).resolve().parents[2]
CLI = "import sys; from judge.cli.subcommands import dispatch; sys.exit(dispatch(sys.argv[1:]))"  # = `judge`


def judge_cli(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )


class Process:
    """A `judge ...` command in its own process group (its zygotes go with it when it is killed)."""

    def __init__(self, env: dict[str, str], log: Path, *args: str):
        self.env, self.log, self.args = env, log, args
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", CLI, *self.args],
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the whole group, mid-whatever."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        self.kill()  # the group's stragglers (zygotes) too

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


class Web(Process):
    def __init__(self, env: dict[str, str], log: Path, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(env, log, "serve", "--port", str(self.port), "--log-level", "warning")

    def wait_healthy(self, seconds: float = 120) -> Web:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"web process exited: {self.tail()}")
            try:
                if httpx.get(self.url + "/api/health", timeout=5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"web process not healthy in {seconds} s: {self.tail()}")


def worker(env: dict[str, str], log: Path, name: str, queue: str = "cpu", concurrency: int = 1) -> Process:
    return Process(env, log, "worker", "--queue", queue, "--concurrency", str(concurrency), "--name", name)
