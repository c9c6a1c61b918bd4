"""Per-job cgroups: memory, pids and CPU limits, OOM and peak facts, kill-all and removal.

Works with cgroup v1 (one hierarchy per controller, e.g. /sys/fs/cgroup/memory) and v2 (one tree with
memory.max, pids.max, cpu.max, memory.events, cgroup.kill). On hybrid hosts (v1 controllers plus a v2
tree without controllers) the v2 tree is still used for cgroup.kill. Job groups are made under the
zygote's own cgroup of each hierarchy, named pj-<zygote pid>-<job>, and removed when the job ends.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from dataclasses import dataclass, field

from sandbox.reaper import alive

CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000
PREFIX = "pj-"


@dataclass
class Hierarchy:
    version: int
    base: str  # the zygote's own cgroup in this hierarchy: job groups go below it
    controllers: set[str] = field(default_factory=set)
    kill: bool = False  # v2: job groups have cgroup.kill (Linux >= 5.14)


def _read(path: str) -> str:
    with open(path) as fh:
        return fh.read()


def _write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def _own_paths() -> dict[str, str]:
    """Controller name (or '' for the v2 tree) -> this process's cgroup path, from /proc/self/cgroup."""
    own = {}
    for line in _read("/proc/self/cgroup").splitlines():
        _id, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            own[name] = path
    return own


def _mounts() -> list[tuple[str, str, str, list[str]]]:
    """(root within the hierarchy, mount point, fs type, super options) of every cgroup mount."""
    found = []
    for line in _read("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        if rfields and rfields[0] in ("cgroup", "cgroup2"):
            found.append((fields[3], fields[4], rfields[0], rfields[2].split(",") if len(rfields) > 2 else []))
    return found


def _join(mount: str, root: str, path: str) -> str | None:
    if root != "/" and not (path == root or path.startswith(root + "/")):
        return None  # our cgroup is not visible through this mount
    rel = path[len(root) :] if root != "/" else path
    return os.path.normpath(mount + "/" + rel.lstrip("/"))


def discover() -> list[Hierarchy]:
    own, found = _own_paths(), []
    for root, mount, fstype, opts in _mounts():
        if fstype == "cgroup2" and "" in own:
            base = _join(mount, root, own[""])
            if base and os.path.isdir(base):
                controllers = set(_read(os.path.join(base, "cgroup.controllers")).split())
                found.append(Hierarchy(2, base, controllers & set(CONTROLLERS)))
        elif fstype == "cgroup":
            names = set(opts) & set(CONTROLLERS)
            for name in names:
                base = _join(mount, root, own.get(name, "/"))
                if base and os.path.isdir(base):
                    found.append(Hierarchy(1, base, {name}))
    return found


class JobGroup:
    """One job's cgroups (one directory per hierarchy)."""

    def __init__(self, dirs: list[str], by_controller: dict[str, tuple[int, str]], kill_dir: str | None):
        self.dirs = dirs
        self.by_controller = by_controller
        self.kill_dir = kill_dir

    def join(self) -> None:
        """Move the calling process into every directory (called in the forked child)."""
        pid = str(os.getpid())
        for path in self.dirs:
            _write(os.path.join(path, "cgroup.procs"), pid)

    def kill(self) -> None:
        try:
            if self.kill_dir:
                _write(os.path.join(self.kill_dir, "cgroup.kill"), "1")
                return
            for path in self.dirs:
                for pid in _read(os.path.join(path, "cgroup.procs")).split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        except OSError:
            pass

    def population(self) -> int:
        """How many processes are still in the job's groups (0 when they are empty or cannot be read)."""
        count = 0
        for path in self.dirs:
            try:
                count = max(count, len(_read(os.path.join(path, "cgroup.procs")).split()))
            except OSError:
                continue
        return count

    def wait_empty(self, bound_s: float) -> int:
        """Kill again and wait, up to bound_s, until no process of the job is left (on a loaded host a fork bomb's
        processes can take a while to die after cgroup.kill). Returns how many are left: 0, or the stragglers
        the job's facts then report."""
        deadline, pause = time.monotonic() + bound_s, 0.001
        while True:
            left = self.population()
            if left == 0 or time.monotonic() >= deadline:
                return left
            self.kill()
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def memory_facts(self) -> tuple[bool, float | None]:
        """(OOM-killed, peak MiB) from the memory controller; (False, None) without one."""
        if "memory" not in self.by_controller:
            return False, None
        version, path = self.by_controller["memory"]
        peak: int | None
        try:
            if version == 1:
                oom = _counter(_read(os.path.join(path, "memory.oom_control")), "oom_kill")
                peak = int(_read(os.path.join(path, "memory.max_usage_in_bytes")))
            else:
                events = _read(os.path.join(path, "memory.events"))
                oom = _counter(events, "oom_kill") + _counter(events, "oom_group_kill")
                peak_file = os.path.join(path, "memory.peak")
                peak = int(_read(peak_file)) if os.path.exists(peak_file) else None
        except (OSError, ValueError):
            return False, None
        return oom > 0, (round(peak / (1 << 20), 1) if peak is not None else None)

    def remove(self) -> list[str]:
        """rmdir every directory; returns those still busy (try again later)."""
        busy = []
        for path in self.dirs:
            if not _rmdir(path):
                busy.append(path)
        return busy


def _counter(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _rmdir(path: str) -> bool:
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


class Cgroups:
    """What this host's cgroups offer the zygote; decided once, then used for every job."""

    def __init__(self, hierarchies: list[Hierarchy] | None = None, reason: str = ""):
        self.owner = os.getpid()
        self.placement: dict[str, Hierarchy] = {}
        self.kill_tree: Hierarchy | None = None
        self.reasons: dict[str, str] = {}
        self.pending: list[str] = []
        if reason:
            self.reasons = {name: reason for name in CONTROLLERS}
            return
        self._settle(discover() if hierarchies is None else hierarchies)

    def _settle(self, hierarchies: list[Hierarchy]) -> None:
        for h in hierarchies:
            if h.version == 2:
                why = _prepare_v2(h)
                if why:
                    self.reasons.update({name: why for name in h.controllers})
                    h.controllers = set()
            writable, h.kill = _try_mkdir(h.base)
            if not writable:
                self.reasons.update({name: f"cannot create cgroups under {h.base}" for name in h.controllers})
                continue
            for name in h.controllers:
                self.placement.setdefault(name, h)
            if h.version == 2 and h.kill and self.kill_tree is None:
                self.kill_tree = h
        for name in CONTROLLERS:
            if name not in self.placement:
                self.reasons.setdefault(name, f"no {name} cgroup controller available to this process")
        self._sweep_stale()

    def status(self, name: str) -> str:
        if name in self.placement:
            return "active"
        return self.reasons.get(name, "unavailable")

    def describe(self) -> str:
        parts = [f"{name}: v{h.version} {h.base}" for name, h in sorted(self.placement.items())]
        if self.kill_tree:
            parts.append(f"kill: v2 {self.kill_tree.base}/cgroup.kill")
        return "; ".join(parts) or "none"

    def create(self, job: str, memory_bytes: int | None, max_pids: int, cpus: float) -> JobGroup | None:
        """Make the job's groups with their limits (in the zygote, before fork); None if there is nothing to use."""
        self._retry_pending()
        name = f"{PREFIX}{self.owner}-{job}"
        used = list(self.placement.values()) + ([self.kill_tree] if self.kill_tree else [])
        dirs = list(dict.fromkeys(os.path.join(h.base, name) for h in used))
        if not dirs:
            return None
        by_controller = {ctl: (h.version, os.path.join(h.base, name)) for ctl, h in self.placement.items()}
        group = JobGroup(dirs, by_controller, os.path.join(self.kill_tree.base, name) if self.kill_tree else None)
        try:
            for path in dirs:
                os.mkdir(path)
            _set_limits(by_controller, memory_bytes, max_pids, cpus)
        except OSError:
            self.release(group)
            raise
        return group

    def release(self, group: JobGroup) -> None:
        """Kill what is left and remove the groups; groups still busy (dying processes) are retried later."""
        group.kill()
        busy = group.remove()
        for _ in range(5):
            if not busy:
                return
            time.sleep(0.002)
            busy = [path for path in busy if not _rmdir(path)]
        self.pending.extend(busy)

    def flush(self, wait_s: float = 0.5) -> None:
        """At shutdown: remove every group still pending."""
        deadline = time.monotonic() + wait_s
        while self.pending and time.monotonic() < deadline:
            self._retry_pending()
            time.sleep(0.01)

    def _retry_pending(self) -> None:
        if self.pending:
            self.pending = [path for path in self.pending if not _rmdir(path)]

    def _sweep_stale(self) -> None:
        """Remove job groups left behind by zygotes that died mid-job (their processes get a moment to exit)."""
        bases = {h.base for h in self.placement.values()} | ({self.kill_tree.base} if self.kill_tree else set())
        stale = []
        for base in bases:
            try:
                names = os.listdir(base)
            except OSError:
                continue
            for name in names:
                owner = name[len(PREFIX) :].split("-")[0] if name.startswith(PREFIX) else ""
                if owner.isdigit() and not alive(int(owner)):
                    stale.append(os.path.join(base, name))
        for _ in range(20):
            for path in stale:
                JobGroup([path], {}, None).kill()
            stale = [path for path in stale if not _rmdir(path)]
            if not stale:
                return
            time.sleep(0.01)
        self.pending.extend(stale)


def _set_limits(
    by_controller: dict[str, tuple[int, str]], memory_bytes: int | None, max_pids: int, cpus: float
) -> None:
    if "memory" in by_controller and memory_bytes:
        version, path = by_controller["memory"]
        if version == 1:
            _write(os.path.join(path, "memory.limit_in_bytes"), str(memory_bytes))
            _write_if_present(os.path.join(path, "memory.memsw.limit_in_bytes"), str(memory_bytes))  # no swap escape
        else:
            _write(os.path.join(path, "memory.max"), str(memory_bytes))
            _write_if_present(os.path.join(path, "memory.swap.max"), "0")
            _write_if_present(os.path.join(path, "memory.oom.group"), "1")
    if "pids" in by_controller:
        _write(os.path.join(by_controller["pids"][1], "pids.max"), str(max_pids))
    if "cpu" in by_controller and cpus > 0:
        version, path = by_controller["cpu"]
        quota = max(1000, int(cpus * CPU_PERIOD_US))
        if version == 1:
            _write(os.path.join(path, "cpu.cfs_period_us"), str(CPU_PERIOD_US))
            _write(os.path.join(path, "cpu.cfs_quota_us"), str(quota))
        else:
            _write(os.path.join(path, "cpu.max"), f"{quota} {CPU_PERIOD_US}")


def _write_if_present(path: str, value: str) -> None:
    if os.path.exists(path):
        _write(path, value)


def _try_mkdir(base: str) -> tuple[bool, bool]:
    """(can make job groups under base, those groups have cgroup.kill)."""
    probe = os.path.join(base, f"{PREFIX}probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError:
        return False, False
    kill = os.path.exists(os.path.join(probe, "cgroup.kill"))
    return _rmdir(probe), kill


def _prepare_v2(h: Hierarchy) -> str:
    """Enable the controllers for children of h.base; '' on success, else why not.

    cgroup v2 lets a group hand controllers to its children only while it holds no processes itself (the
    root excepted). If the only processes there are the judge and its zygotes, they move into a leaf
    h.base/pj-judge; anything else (a shell, other services) means the deployment must delegate a cgroup.
    """
    if not h.controllers:
        return ""
    wanted = " ".join(f"+{name}" for name in sorted(h.controllers))
    control = os.path.join(h.base, "cgroup.subtree_control")
    try:
        _write(control, wanted)
        return ""
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            return f"cgroup v2: cannot enable {wanted} in {h.base}: {exc.strerror}"
    others = [pid for pid in _read(os.path.join(h.base, "cgroup.procs")).split() if not _ours(int(pid))]
    if others:
        return (
            f"cgroup v2: {h.base} also holds {len(others)} other process(es), so its child groups cannot get "
            f"controllers; run the judge in a delegated cgroup of its own"
        )
    leaf = os.path.join(h.base, f"{PREFIX}judge")
    try:
        os.makedirs(leaf, exist_ok=True)
        for pid in _read(os.path.join(h.base, "cgroup.procs")).split():
            try:
                _write(os.path.join(leaf, "cgroup.procs"), pid)
            except ProcessLookupError:
                pass
        _write(control, wanted)
    except OSError as exc:
        return f"cgroup v2: cannot move the judge into {leaf} to enable controllers: {exc.strerror}"
    return ""


def _ours(pid: int) -> bool:
    """The judge (our parent), its zygotes and their jobs."""
    judge = os.getppid()
    for step in range(3):
        if pid == judge:
            return True
        if pid <= 1:
            return False
        try:
            stat = _read(f"/proc/{pid}/stat")
        except OSError:
            return step == 0  # the process itself is gone already; a vanished ancestor proves nothing
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False
