"""What this host offers each isolation layer: probed once per process (at zygote start, before torch loads).

Each layer maps to "active" or the reason it is not available, in words an operator can act on.
Namespace, mount and seccomp support are tried for real in a short-lived child, because an unprivileged
container (no CAP_SYS_ADMIN, or a seccomp profile) refuses them even to root.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys

from sandbox import cgroups, landlock, namespaces, paths, privileges, rlimits, seccomp_filter, syscalls

LAYERS = ("memory", "pids", "cpu", "network", "mount", "pid", "ipc", "uts", "uid", "landlock", "seccomp", "rlimits")
NAMESPACES = ("network", "mount", "pid", "ipc", "uts")


class Host:
    def __init__(
        self, status: dict[str, str], groups: cgroups.Cgroups | None, landlock_abi: int, seccomp, view: paths.View
    ):
        self.status = status
        self.groups = groups
        self.landlock_abi = landlock_abi
        self.seccomp = seccomp
        self.view = view

    def details(self) -> dict[str, str]:
        return {
            "cgroups": self.groups.describe() if self.groups else "none",
            "landlock ABI": str(self.landlock_abi),
            "worker uid": f"{privileges.WORKER_UID}:{privileges.WORKER_GID}"
            if self.status["uid"] == "active"
            else str(os.geteuid() if syscalls.LINUX else "-"),
            "readable": ", ".join(self.view.read),
            "bound back read-only": ", ".join(self.view.keep) or "-",
            "hidden": ", ".join(self.view.hide_dirs + self.view.hide_files),
        }


def probe() -> Host:
    view = paths.host_view()
    if not syscalls.LINUX:
        why = f"not available on {sys.platform}"
        status = {name: why for name in LAYERS}
        status["rlimits"] = rlimits.status()
        return Host(status, None, 0, None, view)
    root = os.geteuid() == 0
    groups = (
        cgroups.Cgroups()
        if root or _cgroup_delegated()
        else cgroups.Cgroups(reason=f"the judge is not root (uid {os.geteuid()}) and has no delegated cgroup")
    )
    status = {name: groups.status(name) for name in cgroups.CONTROLLERS}
    abi, status["landlock"] = landlock.probe()
    flt, status["seccomp"] = seccomp_filter.prepare()
    status["uid"] = privileges.status()
    status["rlimits"] = rlimits.status()
    tried = _try_in_child(flt) if root else {}
    for name in NAMESPACES:
        status[name] = tried.get(name, "needs root" if not root else "the probe child did not report")
    if status["uid"] == "active" and tried.get("uid", "active") != "active":
        status["uid"] = tried["uid"]
    if flt is not None and tried.get("seccomp_load", "active") != "active":
        status["seccomp"], flt = tried["seccomp_load"], None
    return Host(status, groups, abi, flt, view)


def _cgroup_delegated() -> bool:
    """A non-root judge can still use cgroup v2 where systemd delegated its cgroup to it."""
    try:
        own = open("/proc/self/cgroup").read().strip()
    except OSError:
        return False
    return own.startswith("0::") and os.access(f"/sys/fs/cgroup{own[3:]}", os.W_OK)


def _try_in_child(flt) -> dict[str, str]:
    """Unshare, build a read-only mount view and load seccomp in a throwaway child; report what worked."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        result = {}
        try:
            result = _trials(flt)
        finally:
            os.write(write_fd, json.dumps(result).encode()[:60000])
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return json.loads(data or b"{}")


def _trials(flt) -> dict[str, str]:
    result = {}
    try:
        namespaces.unshare(list(NAMESPACES))
        result.update({name: "active" for name in NAMESPACES})
    except OSError:
        for name in NAMESPACES:  # find which ones this host refuses
            try:
                namespaces.unshare([name])
                result[name] = "active"
            except OSError as exc:
                result[name] = (
                    f"unshare refused ({os.strerror(exc.errno or 0)}): needs root with CAP_SYS_ADMIN, "
                    "outside a container profile that forbids it"
                )
    if result.get("mount") == "active":
        try:
            syscalls.mount_setattr("/", syscalls.MOUNT_ATTR_RDONLY, propagation=syscalls.MS_PRIVATE)
            syscalls.mount("tmpfs", "/tmp", "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, "size=64k")
        except OSError as exc:
            result["mount"] = f"mounting refused ({os.strerror(exc.errno or 0)})"
    try:
        privileges.drop()
        result["uid"] = "active"
    except OSError as exc:
        result["uid"] = f"cannot switch to uid {privileges.WORKER_UID}: {exc} (a user namespace without it mapped?)"
    if flt is not None:
        try:
            seccomp_filter.load(flt)
            result["seccomp_load"] = "active"
        except Exception as exc:  # noqa: BLE001
            result["seccomp_load"] = f"loading a seccomp filter failed: {exc}"
    return result


_HOST: Host | None = None


def current() -> Host:
    """The probed host, cached for this process (the zygote probes at start)."""
    global _HOST
    if _HOST is None:
        _HOST = probe()
    return _HOST


def to_wire(probed: Host) -> dict:
    """What a spawned job needs of the zygote's probe (cgroups stay with the zygote)."""
    return {
        "status": probed.status,
        "landlock_abi": probed.landlock_abi,
        "seccomp": probed.seccomp is not None,
        "view": dataclasses.asdict(probed.view),
    }


def adopt(data: dict, seccomp: bool) -> Host:
    """In a spawned job: take the zygote's probe instead of probing again; build the filter only if loaded."""
    global _HOST
    flt = seccomp_filter.build() if seccomp and data["seccomp"] else None
    _HOST = Host(data["status"], None, data["landlock_abi"], flt, paths.View(**data["view"]))
    return _HOST
