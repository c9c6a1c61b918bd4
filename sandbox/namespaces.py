"""Namespaces for a job: network, mount, pid, ipc, uts (and cgroup), and the extra forks a pid namespace needs.

After unshare(CLONE_NEWPID) the caller stays outside; its next child is pid 1 of the new namespace,
and when pid 1 dies the kernel kills every process left in the namespace: that is what ends detached,
double-forked, setsid'd grandchildren. The process tree of an isolated job is therefore

    zygote -> relay (outside, what the zygote waits for) -> init (pid 1) -> job (pid 2)

init only reaps orphans and reports the job's exact wait status to the relay, which ends the same way
(same exit code, or killed by the same signal), so the zygote sees what the job did. The job is not
pid 1 itself because pid 1 ignores signals it has no handler for (a job's own abort() or kill(getpid())
would otherwise not end it) and never reaps its orphans.
"""

from __future__ import annotations

import os
import resource
import signal
import struct

from sandbox import syscalls

FLAGS = {
    "network": syscalls.CLONE_NEWNET,
    "mount": syscalls.CLONE_NEWNS,
    "pid": syscalls.CLONE_NEWPID,
    "ipc": syscalls.CLONE_NEWIPC,
    "uts": syscalls.CLONE_NEWUTS,
}
HOSTNAME = "sandbox"
_STATUS = struct.Struct("=i")


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


def fork_job(close: list[int]) -> None:
    """After unshare(CLONE_NEWPID): returns only in the job (pid 2); relay and init never return.

    `close` are fds only the job may keep (e.g. the worker's socket): relay and init close them so
    that the job's end is seen as soon as it happens.
    """
    status_r, status_w = os.pipe()
    init = os.fork()
    if init:
        os.close(status_w)
        _close(close)
        _relay(init, status_r)
    os.close(status_r)
    # pid 1: dies with the relay (the zygote kills the relay's group; SIGKILL reaches pid 1 from outside).
    syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
    job = os.fork()
    if job:
        _close(close)
        _init(job, status_w)
    os.close(status_w)


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _init(job: int, status_w: int) -> None:
    """pid 1: reap every child; when the job ends, hand its wait status to the relay and exit."""
    code = 0
    try:
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if pid == job:
                os.write(status_w, _STATUS.pack(status))
                break
    except BaseException:  # noqa: BLE001 - init must never fall back into the caller's code
        code = 1
    os._exit(code)


def _relay(init: int, status_r: int) -> None:
    """Outside the namespace: wait for init, then end exactly as the job did."""
    try:
        _, status = os.waitpid(init, 0)
        data = os.read(status_r, _STATUS.size)
        if len(data) == _STATUS.size:
            status = _STATUS.unpack(data)[0]
        end_like(status)
    finally:
        os._exit(70)


def end_like(status: int) -> None:
    """Exit with the code, or die of the signal, that `status` (a wait status) describes."""
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else signal.SIGKILL
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    finally:
        os._exit(128 + sig)
