"""A warm parent: imports heavy modules once, then forks one isolated child per job and reports on it.

Run as `python -m sandbox.zygote --control-fd N --preload torch,pytest`. Single-threaded on
purpose: forking from a process with other threads can leave locks held in the child.
With --spawn (macOS, or zygotes off) it imports nothing heavy and starts a fresh interpreter per job
(sandbox.spawned) instead of forking; it supervises those jobs exactly as it does forks.
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
import time
from collections.abc import Sequence
from dataclasses import replace

from sandbox import child as child_body
from sandbox import host, layers, protocol, spawned
from sandbox.base import EXIT_MEMORY, STACK_BYTES, JobFacts, JobSpec
from sandbox.output import OutputRecord
from sandbox.reaper import Reaper, peak_mib


class Child:
    """The zygote's book-keeping for one running job."""

    def __init__(
        self,
        job_id: int,
        start: child_body.Start,
        pid: int,
        ours: tuple[int, int, socket.socket | None],
        proc=None,
    ):
        """ours: the zygote's ends of the job's output pipe, its layer report's pipe and its stack descriptor."""
        self.job_id, self.spec, self.pid = job_id, start.spec, pid
        self.out_fd, self.report_fd, self.stack = ours  # the stack's is read when the job ends (JobSpec.stack)
        self.group = start.group
        self.started = start.started
        # A parked job's limit starts with its work (restart_clock); it may wait parked_s for that work.
        self.deadline = self.started + (start.spec.parked_s or start.spec.wall_s)
        self.reaped = False
        self.proc = proc  # spawn mode: the Popen, kept so that it never reaps (or warns about) our child
        self.output = OutputRecord(start.spec.output_bytes)
        self.facts = JobFacts(layers=start.plan)

    def restart_clock(self) -> None:
        """A parked job's work has come: its time limit (and the wall time it reports) counts from now."""
        self.started = time.monotonic()
        self.deadline = self.started + self.spec.wall_s

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            if not self.reaped:  # a fork that has not reached setsid yet: no group of its own so far
                _kill_quietly(self.pid)
        except PermissionError:
            pass
        if self.group is not None:
            self.group.kill()


EMPTY_BOUND_S = 5.0  # how long a job's end waits for its cgroup to empty (a fork bomb's processes dying)


def _read_stack(sock: socket.socket | None) -> str:
    """What the job wrote on its stack descriptor (it has ended: no writer is left), at most STACK_BYTES."""
    if sock is None:
        return ""
    chunks, size = [], 0
    while size < STACK_BYTES:
        try:
            chunk = sock.recv(STACK_BYTES - size)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ZygoteServer:
    def __init__(self, control: socket.socket, spawn: bool = False, preload: Sequence[str] = ()):
        self.control = control
        self.spawn, self.preload = spawn, list(preload)  # preload: imported by each spawned job, cold
        self.selector = selectors.DefaultSelector()
        self.selector.register(control, selectors.EVENT_READ, ("control", None))
        self.reaper = Reaper(self.selector)
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
                if kind == "out" and child is not None:
                    self._on_output(child)
                elif kind in ("exit", "sigchld"):
                    for ended, status, usage in self.reaper.ended(child, self.children.values()):
                        self._on_exit(ended, status, usage)
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
        elif message["op"] == "clock":
            child = self.children.get(message["job"])
            if child and not child.facts.timed_out:
                child.restart_clock()
        return True

    def _start(self, job_id: int, spec: JobSpec, fds: list[int]) -> None:
        started = time.monotonic()
        plan = layers.plan(spec)
        group = layers.make_group(spec, plan, str(job_id))
        read_fd, write_fd = os.pipe()
        report_r, report_w = os.pipe()
        ours, theirs = socket.socketpair() if spec.stack else (None, None)
        job_fds = [*fds, theirs.fileno()] if theirs is not None else fds
        start = child_body.Start(spec, job_fds, write_fd, plan, group, report_w, started, os.getpid(), self.preload)
        proc = None
        if self.spawn:
            proc = spawned.launch(start)
            pid = proc.pid
        else:
            pid = self._fork(start, (read_fd, report_r) + ((ours.fileno(),) if ours is not None else ()))
        os.close(write_fd)
        os.close(report_w)
        for fd in fds:
            os.close(fd)
        if theirs is not None and ours is not None:
            theirs.close()
            ours.setblocking(False)
        os.set_blocking(read_fd, False)
        os.set_blocking(report_r, False)
        child = Child(job_id, start, pid, (read_fd, report_r, ours), proc)
        self.children[job_id] = child
        self.selector.register(read_fd, selectors.EVENT_READ, ("out", child))
        self.reaper.watch(child)
        protocol.send(self.control, {"job": job_id, "event": "started", "pid": pid})

    def _fork(self, start: child_body.Start, parent_fds: tuple[int, ...]) -> int:
        """Fork the job's process (the child closes the zygote's ends, `parent_fds`, and runs the child body)."""
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            for fd in parent_fds:
                os.close(fd)
            self._close_inherited()
            child_body.run(replace(start, preload=()))  # a fork has the zygote's modules already
        return pid

    def _close_inherited(self) -> None:
        """In a new child: drop the zygote's own fds (control socket, other jobs' pipes, pidfds, self-pipe)."""
        self.control.close()
        self.selector.close()
        self.reaper.close_in_child()
        for other in self.children.values():
            for fd in (other.out_fd, other.report_fd):
                os.close(fd)
            if other.stack is not None:
                other.stack.close()

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

    def _on_exit(self, child: Child, status: int, usage) -> None:
        child.reaped = True
        if child.proc is not None:
            child.proc.returncode = status  # reaped by us; the Popen must not wait for it again
        child.kill()  # descendants left in the group die with the job
        if child.group is not None:  # and the job ends only once they are gone, within a bound, or says so
            child.facts.leftover_processes = child.group.wait_empty(EMPTY_BOUND_S)
        self._drain(child)
        facts = child.facts
        facts.wall_s = round(time.monotonic() - child.started, 4)
        facts.peak_memory_mib = peak_mib(usage)
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
        facts.stack = _read_stack(child.stack)
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
        if child.stack is not None:
            child.stack.close()
        self.reaper.forget(child)
        try:
            self.selector.unregister(child.out_fd)
        except (KeyError, ValueError):
            pass
        os.close(child.out_fd)
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
                _pid, status = os.waitpid(child.pid, 0)
                child.reaped = True
                if child.proc is not None:
                    child.proc.returncode = status
            except ChildProcessError:
                pass
            layers.release(child.group)
        groups = host.current().groups
        if groups is not None:
            groups.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--preload", default="")
    parser.add_argument("--spawn", action="store_true", help="start a fresh interpreter per job, never fork")
    args = parser.parse_args()
    control = socket.socket(fileno=args.control_fd)
    host.current()  # probe the isolation layers once, while this process is still small and cheap to fork
    preload = list(filter(None, args.preload.split(",")))
    if not args.spawn:
        for name in preload:
            importlib.import_module(name)
        gc.freeze()  # keep the warm heap shared with children: gc would otherwise touch every page
    try:
        ZygoteServer(control, args.spawn, preload).serve()
    except OSError as exc:
        if exc.errno not in (errno.EPIPE, errno.ECONNRESET):
            raise
    # A warm parent holds torch and the native modules it pulled in (triton's nanobind, which reports
    # "leaked" objects at interpreter teardown onto the learner's terminal): skip the teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
