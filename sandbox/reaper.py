"""How the zygote's select loop learns that a job's process ended: a pidfd per child on Linux, else SIGCHLD.

Without os.pidfd_open (macOS, or forced by PRACTICE_SANDBOX_NO_PIDFD=1 for tests) a SIGCHLD handler
writes to a self-pipe (signal.set_wakeup_fd); the loop then polls every child with wait4(WNOHANG).
A child that ends before it is watched is still found: its signal is already waiting in the pipe.
"""

from __future__ import annotations

import os
import selectors
import signal
import sys
from typing import Any

NO_PIDFD_ENV = "PRACTICE_SANDBOX_NO_PIDFD"


def peak_mib(usage) -> float:
    """ru_maxrss is in KiB on Linux, in bytes on macOS."""
    scale = 1 << 20 if sys.platform == "darwin" else 1 << 10
    return round(usage.ru_maxrss / scale, 1)


def alive(pid: int, *, reap: bool = False) -> bool:
    """Whether pid names a live process (one we may not signal counts as alive).

    reap: pid is our own child, and one that ended but was not waited for yet counts as gone.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not reap:
        return True
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        return waited == 0
    except ChildProcessError:  # not our child: kill(0) said it lives
        return True


class Reaper:
    def __init__(self, selector: selectors.BaseSelector):
        self.selector = selector
        self.use_pidfd = hasattr(os, "pidfd_open") and os.environ.get(NO_PIDFD_ENV, "") in ("", "0")
        self.pidfds: dict[int, int] = {}  # pid -> pidfd
        self.wake: tuple[int, int] | None = None
        if not self.use_pidfd:
            read_fd, write_fd = os.pipe()
            for fd in (read_fd, write_fd):
                os.set_blocking(fd, False)
            self.wake = (read_fd, write_fd)
            signal.signal(signal.SIGCHLD, lambda *_: None)  # a Python handler: set_wakeup_fd needs one
            signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
            selector.register(read_fd, selectors.EVENT_READ, ("sigchld", None))

    def watch(self, child) -> None:
        if self.use_pidfd:
            fd = self.pidfds[child.pid] = os.pidfd_open(child.pid)
            self.selector.register(fd, selectors.EVENT_READ, ("exit", child))

    def ended(self, child, children) -> list[tuple[Any, int, Any]]:
        """(child, wait status, rusage) for each child that has ended, reaped. child: the pidfd's, or None."""
        if child is not None:
            _pid, status, usage = os.wait4(child.pid, 0)
            return [(child, status, usage)]
        self._drain()
        done: list[tuple[Any, int, Any]] = []
        for other in list(children):
            pid, status, usage = os.wait4(other.pid, os.WNOHANG)
            if pid:
                done.append((other, status, usage))
        return done

    def forget(self, child) -> None:
        fd = self.pidfds.pop(child.pid, None)
        if fd is not None:
            self.selector.unregister(fd)
            os.close(fd)

    def close_in_child(self) -> None:
        """In a forked child: drop the zygote's pidfds and self-pipe and restore SIGCHLD."""
        for fd in self.pidfds.values():
            os.close(fd)
        if self.wake is not None:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in self.wake:
                os.close(fd)

    def _drain(self) -> None:
        if self.wake is None:
            return
        try:
            while os.read(self.wake[0], 4096):
                pass
        except BlockingIOError:
            pass
