"""A seccomp filter (built with pyseccomp over the system's libseccomp) that denies what a worker never needs.

Default action: allow. A Python + torch process (torch.compile runs a C++ compiler and a pool of
compile workers) makes too many and too version-dependent system calls for an allowlist to stay
correct, so this is a denylist of the dangerous ones: non-unix sockets, tracing and other processes'
memory, mounting, namespaces (including clone's namespace flags), bpf, io_uring, userfaultfd, perf,
keyrings, kernel modules and kexec. clone3 fails with ENOSYS, so glibc falls back to clone, whose flags
a filter can read (clone3 passes them in memory a filter cannot). Syscalls for another architecture
(e.g. int 0x80 on x86_64) kill the process (libseccomp's bad-arch action).
"""

from __future__ import annotations

import errno
import socket

from sandbox import syscalls

DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "keyctl",
    "add_key",
    "request_key",
    "open_by_handle_at",
    "name_to_handle_at",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "quotactl",
    "syslog",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "uselib",
    "vhangup",
    "sethostname",
    "setdomainname",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
)
TIOCSTI, TIOCLINUX = 0x5412, 0x541C  # push characters into a terminal's input


def _module():
    import pyseccomp  # noqa: PLC0415 - needs libseccomp at import; only Linux zygotes load it

    return pyseccomp


def build():
    """The filter object (built once in the zygote; children only load it)."""
    sc = _module()
    flt = sc.SyscallFilter(sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            flt.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):
            pass  # a syscall this libseccomp or architecture does not know
    for name in ("socket", "socketpair"):
        flt.add_rule(deny, name, sc.Arg(0, sc.NE, socket.AF_UNIX))
    for flag in (
        syscalls.CLONE_NEWNS,
        syscalls.CLONE_NEWCGROUP,
        syscalls.CLONE_NEWUTS,
        syscalls.CLONE_NEWIPC,
        syscalls.CLONE_NEWUSER,
        syscalls.CLONE_NEWPID,
        syscalls.CLONE_NEWNET,
    ):
        flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for request in (TIOCSTI, TIOCLINUX):
        flt.add_rule(deny, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, request))
    return flt


def prepare() -> tuple[object | None, str]:
    """(filter, 'active') or (None, why not)."""
    if not syscalls.LINUX:
        return None, "not Linux"
    try:
        return build(), "active"
    except ImportError:
        return None, "pyseccomp is not installed (pip install pyseccomp)"
    except Exception as exc:  # noqa: BLE001 - e.g. libseccomp missing: RuntimeError("Unable to find libseccomp")
        return None, f"libseccomp unusable: {exc}"


def load(flt) -> None:
    flt.load()  # libseccomp also sets no_new_privs


# A fenced descriptor: the calls that read, write, copy, duplicate, close or un-CLOEXEC it.
_FD_ARG0 = (
    "read",
    "readv",
    "pread64",
    "preadv",
    "preadv2",
    "write",
    "writev",
    "pwrite64",
    "pwritev",
    "pwritev2",
    "sendto",
    "recvfrom",
    "sendmmsg",
    "recvmmsg",
    "sendfile",
    "splice",
    "tee",
    "vmsplice",
    "copy_file_range",
    "dup",
    "dup2",
    "dup3",
    "close",
    "shutdown",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "setsockopt",
)
_FD_ARG1 = ("sendfile", "tee", "dup2", "dup3")
_FD_ARG2 = ("splice", "copy_file_range")
_F_DUPFD, _F_SETFD, _F_DUPFD_CLOEXEC, _FIONCLEX = 0, 2, 1030, 0x5450
# No new socket after arming, of any family: a fresh socketpair could carry a copy of the channel in an
# SCM_RIGHTS message (`_socket.socketpair()` raises no audit event), and descriptors of other processes
# are out of reach (pidfd_getfd is denied by the base filter, too).
NO_NEW_SOCKETS = ("socket", "socketpair", "pidfd_getfd")


# A sealed descriptor is not used at all by the fenced thread: neither through the calls above nor by sendmsg and
# recvmsg. A thread started before the fence (faulthandler's watchdog) is not under it and still writes there.
_SEALED_ARG0 = ("sendmsg", "recvmsg", "getsockopt", "fcntl", "ioctl")


def fence(fd: int, sealed: tuple[int, ...] = ()) -> str:
    """Load a second filter on this thread (and the threads and processes it starts) under which `fd` can only be
    used by sendmsg and recvmsg, i.e. through a socket object, and each descriptor of `sealed` not at all; no
    signal handler can be installed, no memfd made and no socket created.

    Returns 'active' or why not. Code that can make a socket object on `fd` still can: keeping it from
    doing so is the caller's part (judge.worker.guard)."""
    if not syscalls.LINUX:
        return "not Linux"
    try:
        sc = _module()
        flt = sc.SyscallFilter(sc.ALLOW)
    except ImportError:
        return "pyseccomp is not installed (pip install pyseccomp)"
    except Exception as exc:  # noqa: BLE001 - e.g. libseccomp missing
        return f"libseccomp unusable: {exc}"
    deny = sc.ERRNO(errno.EPERM)
    for guarded in (fd, *sealed):
        for position, names in ((0, _FD_ARG0), (1, _FD_ARG1), (2, _FD_ARG2)):
            for name in names:
                _add(flt, deny, name, sc.Arg(position, sc.EQ, guarded))
        _add(flt, deny, "close_range", sc.Arg(0, sc.LE, guarded), sc.Arg(1, sc.GE, guarded))
    for command in (_F_DUPFD, _F_SETFD, _F_DUPFD_CLOEXEC):
        _add(flt, deny, "fcntl", sc.Arg(0, sc.EQ, fd), sc.Arg(1, sc.EQ, command))
    _add(flt, deny, "ioctl", sc.Arg(0, sc.EQ, fd), sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, _FIONCLEX))
    for other in sealed:
        for name in _SEALED_ARG0:
            _add(flt, deny, name, sc.Arg(0, sc.EQ, other))
    _add(flt, deny, "rt_sigaction", sc.Arg(1, sc.NE, 0))  # a Python signal handler runs inside any frame
    _add(flt, deny, "memfd_create")  # an executable anonymous file: native code the guard cannot see
    for name in NO_NEW_SOCKETS:
        _add(flt, deny, name)
    flt.load()
    return "active"


def _add(flt, action, name: str, *args) -> None:
    try:
        flt.add_rule(action, name, *args)
    except (OSError, ValueError, RuntimeError):
        pass  # a syscall this libseccomp or architecture does not know
