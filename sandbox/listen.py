"""Container side of the docker runner: a worker zygote serving the host's client over a bind-mounted unix socket.

The image's entrypoint: `python -m sandbox.listen --socket /pj/run/zygote.sock --preload torch,...`.
The host's ZygoteClient connects to the socket (fds pass across a bind mount: one kernel). The container
runs one job at a time: each job's files are copied from the read-only inbox (the host's scratch) onto the
container's own tmpfs, and when the job ends every process it left behind is killed.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile

from sandbox import host
from sandbox.base import JobSpec
from sandbox.zygote import ZygoteServer

SCRATCH_ROOT = "/tmp"  # the container's tmpfs (noexec unless the runner allows native code)


class ContainerServer(ZygoteServer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scratches: dict[int, str] = {}
        self.baseline = {folder: set(_entries(folder)) for folder in SHARED_DIRS}  # the zygote's own, kept

    def _start(self, job_id: int, spec: JobSpec, fds: list[int]) -> None:
        if spec.workdir:
            inbox, scratch = spec.workdir, tempfile.mkdtemp(prefix="job-", dir=SCRATCH_ROOT)
            for name in os.listdir(inbox):
                shutil.copy(os.path.join(inbox, name), scratch)
            spec.workdir = scratch  # the payload names no path in the inbox: the job finds its files in its cwd
            self.scratches[job_id] = scratch
        super()._start(job_id, spec, fds)

    def _on_exit(self, child, status, usage) -> None:
        super()._on_exit(child, status, usage)
        shutil.rmtree(self.scratches.pop(child.job_id, ""), ignore_errors=True)
        if not self.children:
            sweep()
            clean_shared(self.baseline)


def sweep() -> None:
    """Kill every process in the container but its init and this zygote: what a finished job left behind
    (a detached child escapes the job's process group, and a container has no pid namespace per job)."""
    keep = {1, os.getpid(), os.getppid()}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in keep:
            try:
                os.kill(int(name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


SHARED_DIRS = ("/tmp", "/dev/shm")  # the container's tmpfs folders every job can write


def _entries(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def clean_shared(baseline: dict[str, set[str]]) -> None:
    """Between jobs: what a job left in the shared tmpfs folders, and its SysV IPC objects, go.

    A job with an ipc namespace of its own (a GPU container, sandbox.layers) takes its IPC objects with it;
    otherwise `ipcrm --all` removes every object this uid may, and only jobs ever made any."""
    for folder in SHARED_DIRS:
        for name in set(_entries(folder)) - baseline.get(folder, set()):
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass
    if shutil.which("ipcrm"):
        try:
            subprocess.run(["ipcrm", "--all"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            pass


def listen(path: str) -> socket.socket:
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o666)  # the host's judge may run as another uid than the container's user
    server.listen(1)
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--preload", default="")
    args = parser.parse_args()
    server = listen(args.socket)  # bound first: the client connects at once and waits for "ready"
    host.current()
    preload = list(filter(None, args.preload.split(",")))
    for name in preload:
        importlib.import_module(name)
    gc.freeze()
    control, _ = server.accept()
    server.close()
    os.unlink(args.socket)
    try:
        ContainerServer(control, False, preload).serve()
    except OSError:
        pass  # the host went away: the container ends


if __name__ == "__main__":
    main()
