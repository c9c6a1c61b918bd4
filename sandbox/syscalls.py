"""Thin ctypes wrappers for the Linux calls Python's os module lacks (3.11): unshare, mount, prctl, raw syscalls.

Importable on every platform; the functions raise OSError(ENOSYS) where there is no Linux libc.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

LINUX = sys.platform.startswith("linux")
_libc = ctypes.CDLL(None, use_errno=True) if LINUX else None

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACE_FLAGS = (
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
)

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC = 0x20, 0x1000, 0x4000
MS_PRIVATE = 1 << 18

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38

# Syscalls added after the numbering was unified across architectures (same number everywhere).
SYS_MOUNT_SETATTR = 442
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446

AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV, MOUNT_ATTR_NOEXEC = 0x1, 0x2, 0x4, 0x8


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


def _need_libc():
    if _libc is None:
        raise OSError(errno.ENOSYS, f"not available on {sys.platform}")
    return _libc


def syscall(number: int, *args, what: str = "syscall") -> int:
    libc = _need_libc()
    libc.syscall.restype = ctypes.c_long
    return _check(libc.syscall(ctypes.c_long(number), *args), what)


def unshare(flags: int) -> None:
    _check(_need_libc().unshare(ctypes.c_int(flags)), f"unshare({flags:#x})")


def mount(source: str | None, target: str, fstype: str | None, flags: int = 0, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return None if s is None else os.fsencode(s)

    _check(
        _need_libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
        f"mount {fstype or source} on {target}",
    )


def mount_setattr(path: str, attr_set: int, propagation: int = 0, recursive: bool = True) -> None:
    attr = MountAttr(attr_set=attr_set, propagation=propagation)
    syscall(
        SYS_MOUNT_SETATTR,
        ctypes.c_int(AT_FDCWD),
        os.fsencode(path),
        ctypes.c_uint(AT_RECURSIVE if recursive else 0),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
        what=f"mount_setattr({path})",
    )


def prctl(option: int, arg2: int = 0) -> None:
    _check(
        _need_libc().prctl(
            ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)
        ),
        f"prctl({option})",
    )


def sethostname(name: str) -> None:
    data = name.encode()
    _check(_need_libc().sethostname(data, ctypes.c_size_t(len(data))), "sethostname")
