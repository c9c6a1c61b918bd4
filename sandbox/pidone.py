"""What a job's pid namespace runs beside it: init (pid 1) reaps, the relay (outside) ends as the job did.

Standard library only, so that sandbox.namespaces can also run it as a bare interpreter's script (`-I -S -c`):
a parked job's init and relay (sandbox.base.JobSpec.parked_s) become small processes while the job waits for its
work, and their ends at the job's end then free a few MB instead of a copy of the zygote's page tables (each a
fork of a warm zygote of about 300 MB).
"""

from __future__ import annotations

import os
import resource
import signal
import struct
import sys

_STATUS = struct.Struct("=i")


def init(job: int, status_w: int) -> None:
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


def relay(init_pid: int, status_r: int) -> None:
    """Outside the namespace: wait for init, then end exactly as the job did."""
    try:
        _, status = os.waitpid(init_pid, 0)
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


if __name__ == "__main__":  # as sandbox.namespaces.become_small runs it: ROLE PID FD READY
    os.close(int(sys.argv[4]))  # started, with every module it needs imported: the job may change the mounts now
    {"init": init, "relay": relay}[sys.argv[1]](int(sys.argv[2]), int(sys.argv[3]))
