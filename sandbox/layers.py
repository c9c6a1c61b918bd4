"""Isolation for one job: which layers it gets (plan, in the zygote) and applying them (enter, in the child).

Order in the child: cgroup join -> unshare(net, mount, pid, ipc, uts) -> fork into the pid namespace ->
mount view -> drop to the worker uid -> no_new_privs -> Landlock -> seccomp -> rlimits -> the target.
A layer the plan calls "active" that then fails stops the job with EXIT_LAYER (never runs it
unprotected) unless the spec says degrade, in which case the failure is reported and the job runs on.
"""

from __future__ import annotations

import glob
import json
import os
import sys

from sandbox import host as host_mod
from sandbox import landlock, mounts, namespaces, paths, privileges, rlimits, seccomp_filter
from sandbox.base import EXIT_LAYER, JobSpec
from sandbox.cgroups import JobGroup

SKIPPED = "skipped by the caller"
DEFAULT_SCRATCH = "/tmp/scratch"  # where an isolated job without a workdir gets its scratch tmpfs
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
FILE_LIMIT_CAP = 1 << 30


def plan(spec: JobSpec) -> dict[str, str]:
    """Which layers a job with this spec gets here: name -> 'active' or why not."""
    if not spec.isolate:
        return {"process": "active"}
    status = host_mod.current().status
    result = {"process": "active"}
    for name in host_mod.LAYERS:
        result[name] = SKIPPED if name in spec.skip else status[name]
    if result["memory"] != "active" and spec.memory_bytes and result["rlimits"] == "active":
        if spec.address_space_limit:
            result["memory"] += "; an address-space rlimit limits memory instead"
        else:  # a GPU job: CUDA's address-space reservations exceed any such limit
            result["memory"] += "; no address-space rlimit (GPU job): only a container's limit bounds memory"
    return result


def device_nodes(patterns: list[str]) -> list[str]:
    """The device nodes a job may open read-write: the harmless three and what the spec's globs match now."""
    found = [path for pattern in patterns for path in sorted(glob.glob(pattern))]
    return list(dict.fromkeys([*WRITABLE_DEVICES, *found]))


def make_group(spec: JobSpec, planned: dict[str, str], job: str) -> JobGroup | None:
    """In the zygote, before fork: the job's cgroups with their limits (None if no controller is planned)."""
    groups = host_mod.current().groups
    wanted = [name for name in ("memory", "pids", "cpu") if planned.get(name) == "active"]
    if not wanted or groups is None:
        return None
    try:
        return groups.create(
            job,
            spec.memory_bytes if "memory" in wanted else None,
            spec.max_pids if "pids" in wanted else 1 << 22,
            float(spec.threads) if "cpu" in wanted else 0,
        )
    except OSError as exc:
        return FailedGroup(exc)


class FailedGroup(JobGroup):
    """The zygote could not make the job's cgroups: joining fails in the child, as any planned layer may."""

    def __init__(self, error: OSError):
        super().__init__([], {}, None)
        self.error = error

    def join(self) -> None:
        raise OSError(self.error.errno, f"could not create the job's cgroup: {self.error}")


def release(group: JobGroup | None) -> None:
    groups = host_mod.current().groups
    if group is not None and groups is not None:
        groups.release(group)


class LayerReport:
    """What the child tells the zygote about its layers, on a pipe closed before the target runs."""

    def __init__(self, fd: int, spec: JobSpec, planned: dict[str, str]):
        self.fd, self.spec, self.planned = fd, spec, planned
        self.changed: dict[str, str] = {}

    def step(self, names: list[str], action, *args) -> None:
        """Run one layer's action; on failure stop the job, or record it and go on (degrade)."""
        try:
            action(*args)
        except Exception as exc:  # noqa: BLE001 - any failure of a planned layer
            why = f"failed to apply: {type(exc).__name__}: {exc}"
            self.changed.update({name: why for name in names})
            if not self.spec.degrade:
                self.send(error=f"the {'/'.join(names)} layer {why}")
                print(f"sandbox: the {'/'.join(names)} layer {why}; the job did not run", file=sys.stderr)
                os._exit(EXIT_LAYER)

    def send(self, **extra) -> None:
        if self.fd < 0:
            return
        try:
            os.write(self.fd, json.dumps({"layers": self.changed, **extra}).encode()[:4000])
        finally:
            os.close(self.fd)
            self.fd = -1


def enter(
    spec: JobSpec, planned: dict[str, str], group: JobGroup | None, fds: list[int], report: LayerReport
) -> str | None:
    """Apply the planned layers in the current (child) process; returns the job's scratch folder."""
    if os.getsid(0) != os.getpid():  # a spawned job was started in its own session already
        os.setsid()  # own process group: the zygote kills the whole group at the end
    if not spec.isolate:
        return spec.workdir
    on = [name for name, state in planned.items() if state == "active"]
    if group is not None:
        report.step([n for n in ("memory", "pids", "cpu") if n in on], group.join)
    unshared = [name for name in host_mod.NAMESPACES if name in on]
    if unshared:
        report.step(unshared, namespaces.unshare, unshared)
    if "pid" in on and "pid" not in report.changed:
        namespaces.fork_job(list(fds) + [report.fd], small=spec.parked_s is not None)  # from here on: pid 2
    uid = privileges.WORKER_UID if "uid" in on else os.getuid()
    gid = privileges.WORKER_GID if "uid" in on else os.getgid()
    scratch = spec.workdir
    if "mount" in on and "mount" not in report.changed:
        scratch = spec.workdir or DEFAULT_SCRATCH
        view = paths.host_view(spec.hide) if spec.hide else host_mod.current().view
        report.step(["mount"], mounts.build, view, scratch, spec, uid, gid, "pid" in on)
    elif scratch and "uid" in on:
        report.step(["uid"], os.chown, scratch, uid, gid)  # the job's own folder, on the host
    if "uid" in on:
        report.step(["uid"], privileges.drop, uid, gid)
    report.step(["landlock", "seccomp"], privileges.no_new_privs)
    if "landlock" in on:
        writable = [p for p in (scratch, "/dev/shm") if p]
        report.step(
            ["landlock"],
            landlock.restrict,
            host_mod.current().landlock_abi,
            host_mod.current().view.read,
            writable,
            device_nodes(spec.devices_rw),
        )
    if "seccomp" in on:
        report.step(["seccomp"], seccomp_filter.load, host_mod.current().seccomp)
    if "rlimits" in on:
        # The address space too, cgroup or not: the cgroup charges only the pages a job touches, and memory reserved
        # and never touched (a model's weights made with torch.empty) is what a job is not allowed to hold either.
        # Beside a cgroup it leaves a quarter more room, so that what a job touches meets the cgroup first (one
        # fact for one cause, as without the rlimit); alone, it is the limit.
        memory = None
        if spec.address_space_limit and spec.memory_bytes:
            memory = spec.memory_bytes + (spec.memory_bytes // 4 if "memory" in on else 0)
        procs = spec.max_pids if ("pids" not in on and "uid" in on) else None
        report.step(["rlimits"], rlimits.apply, spec.wall_s, min(spec.scratch_bytes, FILE_LIMIT_CAP), memory, procs)
    return scratch
