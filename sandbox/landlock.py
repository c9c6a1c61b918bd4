"""Landlock (Linux >= 5.13) through raw syscalls: read-only allowlist, writes only to scratch, no TCP, scoped signals.

Unlike the mount view, Landlock needs no privileges and stacks with whatever else the host offers, so
it still protects a worker on a host where namespaces are unavailable (an unprivileged container).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat

from sandbox import syscalls

CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
FS_MAKE_SYM, FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

# Filesystem rights each ABI version knows (v1: 13 rights; v2 adds REFER, v3 TRUNCATE, v5 IOCTL_DEV).
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def probe() -> tuple[int, str]:
    """(the kernel's Landlock ABI version, 'active') or (0, why not)."""
    if not syscalls.LINUX:
        return 0, "not Linux"
    try:
        return syscalls.syscall(
            syscalls.SYS_LANDLOCK_CREATE_RULESET,
            None,
            ctypes.c_size_t(0),
            ctypes.c_uint32(CREATE_RULESET_VERSION),
            what="landlock_create_ruleset",
        ), "active"
    except OSError as exc:
        why = {
            errno.ENOSYS: "this kernel has no Landlock (needs Linux >= 5.13)",
            errno.EOPNOTSUPP: "Landlock is disabled at boot (add landlock to the kernel's lsm= list)",
        }
        code = exc.errno or 0
        return 0, why.get(code, f"Landlock refused ({os.strerror(code)}): a container profile may forbid it")


def restrict(version: int, read: list[str], write: list[str], devices_rw: list[str]) -> None:
    """Confine the calling thread (and its future children) for good. Call after no_new_privs."""
    fs = _FS_BY_ABI.get(version, _FS_BY_ABI[5])
    attr = _RulesetAttr(handled_access_fs=fs)
    size = 8
    if version >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP  # handled and never granted: no TCP at all
        size = 16
    if version >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL  # no signals to, no abstract sockets of, outsiders
        size = 24
    ruleset = syscalls.syscall(
        syscalls.SYS_LANDLOCK_CREATE_RULESET,
        ctypes.byref(attr),
        ctypes.c_size_t(size),
        ctypes.c_uint32(0),
        what="landlock_create_ruleset",
    )
    try:
        for path in read:
            _allow(ruleset, path, READ | (FS_IOCTL_DEV if path == "/dev" else 0), fs)
        for path in write:
            _allow(ruleset, path, fs, fs)
        for path in devices_rw:
            _allow(ruleset, path, FILE_RIGHTS, fs)
        syscalls.syscall(
            syscalls.SYS_LANDLOCK_RESTRICT_SELF,
            ctypes.c_int(ruleset),
            ctypes.c_uint32(0),
            what="landlock_restrict_self",
        )
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, access: int, handled: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except (FileNotFoundError, PermissionError):
        return  # nothing there, or nothing this uid could reach anyway
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= FILE_RIGHTS  # rights that only make sense on directories are refused on files
        rule = _PathBeneath(allowed_access=access & handled, parent_fd=fd)
        syscalls.syscall(
            syscalls.SYS_LANDLOCK_ADD_RULE,
            ctypes.c_int(ruleset),
            ctypes.c_int(RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
            what=f"landlock_add_rule({path})",
        )
    finally:
        os.close(fd)
