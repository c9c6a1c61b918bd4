"""Isolation applied inside a freshly forked child before it runs any job code."""

from __future__ import annotations

import ctypes
import os
import resource

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _vm_size() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _can_unshare_net() -> str:
    if os.geteuid() != 0:
        return "needs root or user namespaces"
    return "active"


def plan(spec) -> dict[str, str]:
    """Which layers a job with this spec will get here: name -> 'active' or why not."""
    if not spec.isolate:
        return {"process": "active"}
    return {
        "process": "active",
        "rlimits": "active",
        "memory": "active (rlimit address space)" if spec.memory_bytes else "no limit asked",
        "network": _can_unshare_net(),
    }


def enter(spec, layers: dict[str, str]) -> None:
    """Apply the planned layers in the current (child) process; raise if a planned one fails."""
    os.setsid()  # own process group: the zygote kills the whole group at the end
    if not spec.isolate:
        return
    limits = {
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_NOFILE: 256,
        resource.RLIMIT_FSIZE: 256 << 20,
        resource.RLIMIT_CPU: int(spec.wall_s) + 5,
    }
    if spec.memory_bytes:
        # The address-space limit is relative: the torch already mapped by the zygote is not the learner's.
        limits[resource.RLIMIT_AS] = _vm_size() + spec.memory_bytes
    for which, value in limits.items():
        resource.setrlimit(which, (value, value))
    if layers.get("network") == "active" and _libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET) failed")
