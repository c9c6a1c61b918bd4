"""Leave root: no supplementary groups, an unprivileged uid/gid, no capabilities, no way back (no_new_privs)."""

from __future__ import annotations

import os

from sandbox import syscalls

WORKER_UID = 65534  # "nobody" on most distributions; nothing on the host should own files as it
WORKER_GID = 65534


def status() -> str:
    if not syscalls.LINUX:
        return "not Linux"
    if os.geteuid() != 0:
        return f"the judge is not root: the worker keeps the judge's uid {os.geteuid()}"
    return "active"


def drop(uid: int = WORKER_UID, gid: int = WORKER_GID) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid) or os.getgroups():
        raise OSError("credentials did not change")
    if _effective_caps() != 0:
        raise OSError("capabilities survived the uid change")
    # Changing uid made the process non-dumpable, which makes /proc/self/* root-owned and unreadable to the
    # worker itself (Python's subprocess lists /proc/self/fd). seccomp forbids ptrace, so dumpable is safe.
    syscalls.prctl(syscalls.PR_SET_DUMPABLE, 1)


def no_new_privs() -> None:
    syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)


def _effective_caps() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return 0
