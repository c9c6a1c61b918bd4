"""A warm parent: imports heavy modules once, then forks one isolated child per job and reports on it.

Run as `python -m sandbox.zygote --control-fd N --preload torch,pytest`. Single-threaded on
purpose: forking from a process with other threads can leave locks held in the child.
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import tempfile
import time
import traceback

from sandbox import host, layers, protocol, syscalls
from sandbox.base import EXIT_MEMORY, JobFacts, JobSpec
from sandbox.cgroups import JobGroup
from sandbox.output import OutputRecord


class Child:
    """The zygote's book-keeping for one running job."""

    def __init__(self, job_id: int, spec: JobSpec, pid: int, out_fd: int, report_fd: int, plan: dict[str, str],
                 group: JobGroup | None, started: float):
        self.job_id, self.spec, self.pid, self.out_fd, self.report_fd = job_id, spec, pid, out_fd, report_fd
        self.group = group
        self.started = started
        self.deadline = self.started + spec.wall_s
        self.pidfd = os.pidfd_open(pid)
        self.output = OutputRecord(spec.output_bytes)
        self.facts = JobFacts(layers=plan)

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.group is not None:
            self.group.kill()


def _job_env(spec: JobSpec, scratch: str | None, planned: dict[str, str]) -> None:
    """cwd, home, temporary files and every cache torch.compile writes, inside the job's scratch folder."""
    if scratch:
        os.chdir(scratch)
        cache = os.path.join(scratch, ".cache")
        os.environ.update(HOME=scratch, TMPDIR=scratch, XDG_CACHE_HOME=cache, TORCH_HOME=os.path.join(cache, "torch"),
                          TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "torchinductor"),
                          TRITON_CACHE_DIR=os.path.join(cache, "triton"))
        tempfile.tempdir = None  # the zygote may have cached its own temporary folder
    if planned.get("uid") == "active":
        os.environ.update(USER="sandbox", LOGNAME="sandbox")  # getpass.getuser() needs no passwd entry
    os.environ.update(spec.env)


def _run_child(spec: JobSpec, fds: list[int], out_fd: int, plan: dict[str, str], group: JobGroup | None,
               report_fd: int, started: float, zygote_pid: int) -> None:
    """Body of the forked child; never returns."""
    code = 1
    try:
        syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)  # a job never outlives its zygote
        if os.getppid() != zygote_pid:
            os._exit(code)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.close(out_fd)
        module, func = spec.target.split(":")
        target = getattr(importlib.import_module(module), func)  # trusted code: imported before isolation
        report = layers.Report(report_fd, spec, plan)
        scratch = layers.enter(spec, plan, group, fds, report)
        report.send(setup_s=round(time.monotonic() - started, 4))
        _job_env(spec, scratch, plan)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(spec.threads)
        target(fds, spec.payload)
        code = 0
    except MemoryError:
        code = EXIT_MEMORY
    except BaseException:  # noqa: BLE001 - the child reports whatever stopped it, then exits
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


class Zygote:
    def __init__(self, control: socket.socket):
        self.control = control
        self.selector = selectors.DefaultSelector()
        self.selector.register(control, selectors.EVENT_READ, ("control", None))
        self.children: dict[int, Child] = {}

    def serve(self) -> None:
        protocol.send(self.control, {"event": "ready", "pid": os.getpid()})
        while True:
            for key, _ in self.selector.select(self._timeout()):
                kind, child = key.data
                if child is not None and self.children.get(child.job_id) is not child:
                    continue  # forgotten earlier in this same batch of events
                if kind == "control" and not self._on_control():
                    return self._shutdown()
                if kind == "out":
                    self._on_output(child)
                elif kind == "exit":
                    self._on_exit(child)
            self._enforce_deadlines()

    def _timeout(self) -> float | None:
        if not self.children:
            return None
        return max(0.0, min(c.deadline for c in self.children.values()) - time.monotonic())

    def _on_control(self) -> bool:
        message, fds = protocol.recv(self.control)
        if message is None:
            return False
        if message["op"] == "start":
            self._start(message["job"], JobSpec.from_wire(message["spec"]), fds)
        elif message["op"] == "kill":
            child = self.children.get(message["job"])
            if child:
                child.kill()
        return True

    def _start(self, job_id: int, spec: JobSpec, fds: list[int]) -> None:
        started = time.monotonic()
        plan = layers.plan(spec)
        group = layers.make_group(spec, plan, str(job_id))
        read_fd, write_fd = os.pipe()
        report_r, report_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        zygote_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            os.close(report_r)
            self._close_inherited()
            _run_child(spec, fds, write_fd, plan, group, report_w, started, zygote_pid)
        os.close(write_fd)
        os.close(report_w)
        for fd in fds:
            os.close(fd)
        os.set_blocking(read_fd, False)
        os.set_blocking(report_r, False)
        child = Child(job_id, spec, pid, read_fd, report_r, plan, group, started)
        self.children[job_id] = child
        self.selector.register(read_fd, selectors.EVENT_READ, ("out", child))
        self.selector.register(child.pidfd, selectors.EVENT_READ, ("exit", child))
        protocol.send(self.control, {"job": job_id, "event": "started", "pid": pid})

    def _close_inherited(self) -> None:
        """In a new child: drop the zygote's own fds (control socket, other jobs' pipes and pidfds)."""
        self.control.close()
        self.selector.close()
        for other in self.children.values():
            for fd in (other.out_fd, other.report_fd, other.pidfd):
                os.close(fd)

    def _on_output(self, child: Child) -> None:
        try:
            chunk = os.read(child.out_fd, 65536)
        except BlockingIOError:
            return
        if not chunk:  # every writer closed the pipe
            self.selector.unregister(child.out_fd)
            return
        child.output.add(chunk)
        if child.output.exceeded and not child.facts.output_exceeded:
            child.facts.output_exceeded = True
            child.kill()

    def _on_exit(self, child: Child) -> None:
        _pid, status, usage = os.wait4(child.pid, 0)
        child.kill()  # descendants left in the group die with the job
        self._drain(child)
        facts = child.facts
        facts.wall_s = round(time.monotonic() - child.started, 4)
        facts.peak_memory_mib = round(usage.ru_maxrss / 1024, 1)
        if os.WIFSIGNALED(status):
            facts.signal = os.WTERMSIG(status)
        else:
            facts.exit_code = os.WEXITSTATUS(status)
        if child.group is not None:
            oom, peak = child.group.memory_facts()
            facts.memory_exceeded = facts.memory_exceeded or oom
            facts.peak_memory_mib = peak if peak is not None else facts.peak_memory_mib
        # A worker that caught a refused allocation says so by its exit code (the only signal without a cgroup).
        facts.memory_exceeded = facts.memory_exceeded or facts.exit_code == EXIT_MEMORY
        facts.output_tail = child.output.text()
        self._read_report(child)
        layers.release(child.group)
        self._forget(child)
        protocol.send(self.control, {"job": child.job_id, "event": "exited", "facts": facts.to_wire()})

    def _drain(self, child: Child) -> None:
        for _ in range(64):  # bounded: a surviving writer must not keep us here
            try:
                chunk = os.read(child.out_fd, 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            child.output.add(chunk)
        child.facts.output_exceeded = child.facts.output_exceeded or child.output.exceeded

    def _read_report(self, child: Child) -> None:
        try:
            report = json.loads(os.read(child.report_fd, 8192) or b"{}")
        except (OSError, ValueError):
            return
        child.facts.layers.update(report.get("layers", {}))
        child.facts.setup_s = report.get("setup_s")
        child.facts.sandbox_error = report.get("error", "")

    def _forget(self, child: Child) -> None:
        os.close(child.report_fd)
        for fd in (child.out_fd, child.pidfd):
            try:
                self.selector.unregister(fd)
            except (KeyError, ValueError):
                pass
            os.close(fd)
        del self.children[child.job_id]

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for child in self.children.values():
            if now >= child.deadline and not child.facts.timed_out:
                child.facts.timed_out = True
                child.kill()

    def _shutdown(self) -> None:
        for child in list(self.children.values()):
            child.kill()
            try:
                os.waitpid(child.pid, 0)
            except ChildProcessError:
                pass
            layers.release(child.group)
        if host.current().groups is not None:
            host.current().groups.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--preload", default="")
    args = parser.parse_args()
    control = socket.socket(fileno=args.control_fd)
    host.current()  # probe the isolation layers once, while this process is still small and cheap to fork
    for name in filter(None, args.preload.split(",")):
        importlib.import_module(name)
    gc.freeze()  # keep the warm heap shared with children: gc would otherwise touch every page
    try:
        Zygote(control).serve()
    except OSError as exc:
        if exc.errno not in (errno.EPIPE, errno.ECONNRESET):
            raise


if __name__ == "__main__":
    main()
