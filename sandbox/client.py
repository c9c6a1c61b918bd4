"""Client side of a zygote: start it, ask it for jobs, wait for what it observed."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from sandbox import protocol
from sandbox.base import JobFacts, JobSpec

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
# Variables a zygote keeps from the caller's environment; everything else (tokens, keys) is dropped.
KEPT_ENV = (
    "PATH",
    "LANG",
    "LC_ALL",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "VIRTUAL_ENV",
    "SYSTEMROOT",
    "PRACTICE_SANDBOX_NO_PIDFD",
)
# What CUDA and Triton read from the environment, kept by the same allowlist: where the driver's and
# toolkit's libraries are, how modules load. CUDA_VISIBLE_DEVICES is not inherited: each GPU job gets the
# one device of its slot (judge.runners.base.RunnerPolicy.env), so no job lands on cuda:0 by default.
CUDA_ENV = (
    "LD_LIBRARY_PATH",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_MODULE_LOADING",
    "CUDA_CACHE_DISABLE",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "TRITON_LIBCUDA_PATH",
    "TRITON_PTXAS_PATH",
    "CC",
)


def zygote_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """A zygote's whole environment: the allowlists above, taken from the caller's, and the interpreter's own."""
    given = os.environ if environ is None else environ
    env = {k: given[k] for k in (*KEPT_ENV, *CUDA_ENV) if k in given}
    env.update(
        PYTHONPATH=str(PACKAGE_ROOT),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONUNBUFFERED="1",
        HOME=given.get("HOME", "/tmp"),
        LANG=env.get("LANG", "C.UTF-8"),
    )
    return env


def fork_unsafe() -> bool:
    """Where forking a warm parent is unsafe (macOS after `import torch`) or impossible (no os.fork)."""
    return sys.platform == "darwin" or not hasattr(os, "fork")


class ZygoteDied(RuntimeError):
    """The warm parent is gone: an infrastructure fault, never the learner's."""


class Job:
    """One job's process (forked or spawned): its pid once started, its facts once it has ended."""

    def __init__(self, zygote: ZygoteClient, job_id: int):
        self._zygote = zygote
        self.id = job_id
        self.pid: int | None = None
        self.facts: JobFacts | None = None
        self._started = threading.Event()
        self._ended = threading.Event()

    def wait_started(self, timeout: float | None = None) -> int:
        if not self._started.wait(timeout) or self.pid is None:
            raise ZygoteDied("the zygote did not start the job")
        return self.pid

    def wait(self, timeout: float | None = None) -> JobFacts | None:
        """The facts, or None if the job is still running after timeout seconds."""
        self._ended.wait(timeout)
        if self._ended.is_set() and self.facts is None:
            raise ZygoteDied("the zygote died while the job ran")
        return self.facts

    @property
    def ended(self) -> bool:
        """Whether the job has ended (or its zygote has gone)."""
        return self._ended.is_set()

    def kill(self) -> None:
        self._zygote._send({"op": "kill", "job": self.id})

    def restart_clock(self) -> None:
        """A parked job (JobSpec.parked_s) is given its work: its time limit counts from now."""
        self._zygote._send({"op": "clock", "job": self.id})


class ZygoteClient:
    """A warm parent process with the given modules imported, shared by many concurrent jobs.

    spawn=True (forced where fork_unsafe()): the parent imports nothing heavy and starts a fresh
    interpreter per job that imports `preload` itself: instant start, each job pays the cold imports.
    """

    def __init__(self, preload: list[str], name: str = "zygote", spawn: bool = False):
        self.preload = preload
        self.name = name
        self.spawn = spawn or fork_unsafe()
        self._ids = itertools.count(1)
        self._jobs: dict[int, Job] = {}
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> ZygoteClient:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = zygote_env()
        argv = [
            sys.executable,
            "-m",
            "sandbox.zygote",
            "--control-fd",
            str(theirs.fileno()),
            "--preload",
            ",".join(self.preload),
        ] + (["--spawn"] if self.spawn else [])
        self._proc = subprocess.Popen(
            argv,
            pass_fds=[theirs.fileno()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd=str(PACKAGE_ROOT),
        )
        theirs.close()
        self._sock = ours
        self._reader = threading.Thread(target=self._read_loop, name=f"{self.name}-reader", daemon=True)
        self._reader.start()
        return self

    def wait_ready(self, timeout: float = 120) -> None:
        if not self._ready.wait(timeout):
            raise ZygoteDied(f"{self.name} did not become ready in {timeout:.0f}s")
        if not self.alive:
            raise ZygoteDied(f"{self.name} exited while starting")

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def run(self, spec: JobSpec, fds: Sequence[int] = ()) -> Job:
        """Start a job; the fds are sent to the child (the caller may close its copies afterwards)."""
        self.wait_ready()
        job = Job(self, next(self._ids))
        with self._lock:
            self._jobs[job.id] = job
        self._send({"op": "start", "job": job.id, "spec": spec.to_wire()}, fds)
        job.wait_started(timeout=30)
        return job

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        if self._proc is not None:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def _send(self, message: dict, fds: Sequence[int] = ()) -> None:
        if self._sock is None:
            raise ZygoteDied(f"{self.name} is not started")
        try:
            with self._lock:
                protocol.send(self._sock, message, fds)
        except OSError as exc:
            raise ZygoteDied(f"{self.name} is not reachable: {exc}") from exc

    def _read_loop(self) -> None:
        sock = self._sock
        if sock is None:
            return
        try:
            while True:
                message, fds = protocol.recv(sock)
                for fd in fds:
                    os.close(fd)
                if message is None:
                    break
                self._dispatch(message)
        except OSError:
            pass
        finally:
            self._ready.set()
            with self._lock:
                jobs, self._jobs = list(self._jobs.values()), {}
            for job in jobs:  # wake every waiter: a dead zygote reports nothing more
                job._started.set()
                job._ended.set()

    def _dispatch(self, message: dict) -> None:
        if message.get("event") == "ready":
            self._ready.set()
            return
        with self._lock:
            job = self._jobs.get(message["job"])
        if job is None:
            return
        if message["event"] == "started":
            job.pid = message["pid"]
            job._started.set()
        elif message["event"] == "exited":
            job.facts = JobFacts.from_wire(message["facts"])
            with self._lock:
                self._jobs.pop(job.id, None)
            job._ended.set()
