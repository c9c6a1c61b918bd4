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
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "unshare", "setns", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "keyctl", "add_key", "request_key", "open_by_handle_at", "name_to_handle_at",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog", "iopl", "ioperm", "lookup_dcookie", "uselib",
    "vhangup", "sethostname", "setdomainname", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
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
    for flag in (syscalls.CLONE_NEWNS, syscalls.CLONE_NEWCGROUP, syscalls.CLONE_NEWUTS, syscalls.CLONE_NEWIPC,
                 syscalls.CLONE_NEWUSER, syscalls.CLONE_NEWPID, syscalls.CLONE_NEWNET):
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
