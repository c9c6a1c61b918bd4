"""Resource limits that turn runaway behaviour into clear errors (file size, open files, core dumps, CPU time).

The address-space limit is measured from the current size, so that the warm parent's heap (torch's shared
mappings included) is not the learner's: it bounds what a job reserves on top of that (by the job's memory
limit, and a quarter more where a cgroup bounds what it touches: sandbox.layers). A memory cgroup, where one
exists, bounds what a job touches (and /dev/shm, which an address-space limit misses); the rlimit bounds what it
reserves and never touches, which no cgroup charges (a model's real weights made with torch.empty: exercise
102's "no real weights"). GPU jobs get none (CUDA reserves far more address space than any limit would allow).
RLIMIT_NPROC counts every process of the uid on the host, so it is only the fallback where no pids cgroup exists.
"""

from __future__ import annotations

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]  # checked for None before any rlimit is set

OPEN_FILES = 1024
CPU_GRACE_S = 5


def status() -> str:
    return "active" if resource is not None else "no resource limits on this platform"


def vm_size() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def apply(wall_s: float, file_bytes: int, memory_bytes: int | None = None, max_procs: int | None = None) -> None:
    """memory_bytes: the address space on top of the current size; max_procs: only where no cgroup enforces it."""
    cpu = int(wall_s) + CPU_GRACE_S
    limits = {
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NOFILE: (OPEN_FILES, OPEN_FILES),
        resource.RLIMIT_FSIZE: (file_bytes, file_bytes),
        resource.RLIMIT_CPU: (cpu, cpu + CPU_GRACE_S),  # SIGXCPU first, SIGKILL at the hard limit
    }
    if memory_bytes:
        size = vm_size() + memory_bytes
        limits[resource.RLIMIT_AS] = (size, size)
    if max_procs:
        limits[resource.RLIMIT_NPROC] = (max_procs, max_procs)
    for which, (soft, hard) in limits.items():
        _, current_hard = resource.getrlimit(which)
        if current_hard != resource.RLIM_INFINITY:
            hard = min(hard, current_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))
