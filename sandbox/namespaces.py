"""Namespaces for a job: network, mount, pid, ipc, uts (and cgroup), and the extra forks a pid namespace needs.

After unshare(CLONE_NEWPID) the caller stays outside; its next child is pid 1 of the new namespace,
and when pid 1 dies the kernel kills every process left in the namespace: that is what ends detached,
double-forked, setsid'd grandchildren. The process tree of an isolated job is therefore

    zygote -> relay (outside, what the zygote waits for) -> init (pid 1) -> job (pid 2)

init only reaps orphans and reports the job's exact wait status to the relay, which ends the same way
(same exit code, or killed by the same signal), so the zygote sees what the job did (sandbox.pidone holds
both). The job is not pid 1 itself because pid 1 ignores signals it has no handler for (a job's own
abort() or kill(getpid()) would otherwise not end it) and never reaps its orphans.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from sandbox import pidone, syscalls

FLAGS = {
    "network": syscalls.CLONE_NEWNET,
    "mount": syscalls.CLONE_NEWNS,
    "pid": syscalls.CLONE_NEWPID,
    "ipc": syscalls.CLONE_NEWIPC,
    "uts": syscalls.CLONE_NEWUTS,
}
HOSTNAME = "sandbox"
_PIDONE = Path(pidone.__file__).read_text(encoding="utf-8")  # read now: the job's mount view may hide it later


def unshare(names: list[str]) -> None:
    flags = 0
    for name in names:
        flags |= FLAGS[name]
    if flags & syscalls.CLONE_NEWNS:
        flags |= syscalls.CLONE_NEWCGROUP  # /proc/self/cgroup then shows the job's group as its root
    if flags:
        syscalls.unshare(flags)
    if "uts" in names:
        syscalls.sethostname(HOSTNAME)


def fork_job(close: list[int], small: bool = False) -> None:
    """After unshare(CLONE_NEWPID): returns only in the job (pid 2); relay and init never return.

    `close` are fds only the job may keep (e.g. the worker's socket): relay and init close them so
    that the job's end is seen as soon as it happens. `small`: relay and init become bare interpreters
    (become_small), for a job that is started long before its work (a parked one); the job waits until both
    have started, since they read the interpreter's files from the mount namespace that it is about to change.
    """
    ready_r, ready_w = os.pipe() if small else (-1, -1)
    status_r, status_w = os.pipe()
    init = os.fork()
    if init:
        os.close(status_w)
        _close([*close, ready_r])
        become_small("relay", init, status_r, ready_w)
        pidone.relay(init, status_r)
    os.close(status_r)
    # pid 1: dies with the relay (the zygote kills the relay's group; SIGKILL reaches pid 1 from outside).
    syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
    job = os.fork()
    if job:
        _close([*close, ready_r])
        become_small("init", job, status_w, ready_w)
        pidone.init(job, status_w)
    os.close(status_w)
    if small:
        os.close(ready_w)
        _until_closed(ready_r)  # relay and init close their ends once started (or on failing to)


def become_small(role: str, pid: int, fd: int, ready: int) -> None:
    """Run sandbox.pidone's `role` for `pid` in a fresh bare interpreter (exec: same process, same fds' numbers,
    a few MB instead of the zygote's copy), which closes `ready` once it has started. Returns only if that cannot
    start (or `ready` is -1: not asked), with `ready` closed, and the caller goes on in Python."""
    if ready < 0:
        return
    try:
        os.set_inheritable(fd, True)
        os.set_inheritable(ready, True)
        os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", _PIDONE, role, str(pid), str(fd), str(ready)])
    except OSError:
        os.close(ready)


def _until_closed(fd: int) -> None:
    while True:
        try:
            if not os.read(fd, 1):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    os.close(fd)


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
