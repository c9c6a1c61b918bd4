"""Host-side evidence for the red-team tests: which layers are on, what changed on disk, which processes
outlived a judgement, what a learner-facing report reveals. Imports neither torch nor learner code."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", "node_modules", ".mypy_cache", ".ruff_cache"}

# ---------------------------------------------------------------- layers


# Attack header tokens -> how to read them from run.layers / `judge doctor` (sandbox/host.py's names first).
def _active(value) -> bool:
    return str(value).strip().lower().startswith("active")


TOKENS = {
    "network": lambda L: _active(L.get("network", "")),
    "mount": lambda L: _active(L.get("mount", "")),
    "pidns": lambda L: _active(L.get("pid", "")),
    "ipc": lambda L: _active(L.get("ipc", "")),
    "uid": lambda L: _active(L.get("uid", "")),
    "landlock": lambda L: _active(L.get("landlock", "")),
    "seccomp": lambda L: _active(L.get("seccomp", "")),
    "memcg": lambda L: L.get("memory", "") == "active",
    "pids": lambda L: L.get("pids", "") == "active",
    "cgroup": lambda L: any(L.get(n, "") == "active" for n in ("memory", "pids", "cpu")),
    # any memory limit at all: a memory cgroup or the address-space rlimit
    "memory": lambda L: (
        _active(L.get("memory", ""))
        or "address-space rlimit" in str(L.get("memory", ""))
        or "rlimit address space" in str(L.get("memory", ""))
    ),
}


@dataclass
class Layers:
    """Isolation layers as the sandbox reported them for a real worker job (run.layers), and as
    `judge doctor --json` reports them for this host ({} where the command is unavailable)."""

    reported: dict[str, str]
    doctor: dict[str, str] = field(default_factory=dict)

    def active(self, token: str, both: bool = False) -> bool:
        """Active in run.layers (falling back to doctor for names it lacks); with both=True, doctor must agree."""
        check = TOKENS.get(token)
        if check is None:
            raise KeyError(f"unknown layer token {token!r} in an attack header")
        on = bool(check({**self.doctor, **self.reported}))
        return on and (not both or not self.doctor or bool(check(self.doctor)))

    def missing(self, requirement: list[str], both: bool = False) -> list[str]:
        """Each requirement is 'a|b' (any of); returns the ones none of whose layers is active."""
        return [req for req in requirement if not any(self.active(t.strip(), both) for t in req.split("|"))]


def layers_required() -> bool:
    """Whether a layer that is off fails the red-team and layer tests instead of skipping them: in CI (CI=true),
    on Linux as root (where every layer should apply), or with PRACTICE_REQUIRE_LAYERS=1; a weaker host opts
    out with PRACTICE_REQUIRE_LAYERS=0."""
    flag = os.environ.get("PRACTICE_REQUIRE_LAYERS")
    if flag in ("0", "1"):
        return flag == "1"
    in_ci = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
    return in_ci or (sys.platform == "linux" and hasattr(os, "geteuid") and os.geteuid() == 0)


def doctor_layers() -> dict[str, str]:
    """`judge doctor --json` if the command exists; {} otherwise (the report's run.layers is the main source)."""
    exe = shutil.which("judge")
    argv = [exe] if exe else [sys.executable, "-m", "judge.cli"]
    try:
        out = subprocess.run([*argv, "doctor", "--json"], capture_output=True, text=True, timeout=120, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    try:
        data = json.loads(out.stdout)
    except ValueError:
        return {}
    layers = data.get("layers", data) if isinstance(data, dict) else {}
    return {str(k): str(v) for k, v in layers.items() if isinstance(v, (str, int, float, bool))}


# ---------------------------------------------------------------- files


def _package_dir(name: str) -> Path | None:
    spec = find_spec(name)
    return Path(spec.origin).parent if spec and spec.origin else None


def watched_dirs() -> list[Path]:
    """Folders whose top-level entries are compared (shared, world-writable or precious)."""
    dirs = [Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path("/root"), Path("/")]
    torch_dir = _package_dir("torch")
    if torch_dir is not None:
        dirs += [torch_dir, torch_dir.parent]
    return [d for d in dirs if d.is_dir()]


def snapshot(extra: Sequence[Path] = ()) -> dict[str, tuple[int, int]]:
    """path -> (mtime_ns, size): the whole repository tree, and the top level of the watched folders."""
    seen: dict[str, tuple[int, int]] = {}
    for top, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in files:
            _stat_into(seen, os.path.join(top, name))
    for folder in [*watched_dirs(), *extra]:
        try:
            for entry in os.scandir(folder):
                _stat_into(seen, entry.path)
        except OSError:
            pass
    return seen


def _stat_into(seen: dict, path: str) -> None:
    try:
        st = os.lstat(path)
    except OSError:
        return
    seen[path] = (st.st_mtime_ns, st.st_size)


def mentions(path: str, canary: str, limit: int = 8 << 20) -> bool:
    """The path or what it holds (files read up to `limit`, folders walked) carries the canary."""
    if canary in path:
        return True
    p = Path(path)
    try:
        if p.is_symlink():
            return canary in os.readlink(p)
        if p.is_file():
            with open(p, "rb") as fh:
                return canary.encode() in fh.read(limit)
        if p.is_dir():
            for n, child in enumerate(p.rglob("*")):
                if n > 500:
                    break
                if canary in str(child) or (child.is_file() and mentions(str(child), canary, limit)):
                    return True
    except OSError:
        pass
    return False


@dataclass
class FileChanges:
    new: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def ours(self, canary: str, ignore: tuple[str, ...] = ()) -> list[str]:
        """Changes carrying the canary: new files and folders (walked), modified files (a modified
        folder's new entries are listed on their own)."""
        return [
            p
            for p in self.new + [m for m in self.modified if not os.path.isdir(m)]
            if not p.startswith(ignore) and mentions(p, canary)
        ]


def diff(before: dict, after: dict) -> FileChanges:
    return FileChanges(
        new=sorted(set(after) - set(before)),
        modified=sorted(p for p in set(after) & set(before) if after[p] != before[p]),
        removed=sorted(set(before) - set(after)),
    )


def undo(changes: FileChanges, canary: str) -> None:
    """Remove what an attack left (files and folders carrying the canary); strip its lines from changed files."""
    for path in changes.new:
        if mentions(path, canary):
            p = Path(path)
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
    for path in changes.modified:
        p = Path(path)
        if p.is_file() and mentions(path, canary):
            text = p.read_text(encoding="utf-8", errors="surrogateescape")
            text = text.replace(f"\n# {canary} was here\n", "")
            text = "".join(line for line in text.splitlines(keepends=True) if canary not in line)
            p.write_text(text, encoding="utf-8", errors="surrogateescape")


def canary_files(canary: str) -> list[str]:
    """Marker files an attack may have dropped anywhere we can look, found by name."""
    found = []
    for folder in [*watched_dirs(), REPO]:
        try:
            found += [e.path for e in os.scandir(folder) if canary in e.name]
        except OSError:
            pass
    return found


# ---------------------------------------------------------------- processes


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _ppid(pid: int) -> int:
    stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
    try:
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (IndexError, ValueError):
        return -1


def tagged_processes(marks: list[str]) -> dict[int, str]:
    """pid -> command line, for every process whose command line or initial environment carries a mark."""
    found, me = {}, os.getpid()
    wanted = [m.encode() for m in marks if m]
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        cmdline = _read(f"/proc/{pid}/cmdline")
        environ = _read(f"/proc/{pid}/environ")
        if any(m in cmdline or m in environ for m in wanted):
            found[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return found


def zygote_pids() -> set[int]:
    """This process's warm parents (children of ours running sandbox.zygote)."""
    me = os.getpid()
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _ppid(int(entry)) == me and b"sandbox.zygote" in _read(f"/proc/{entry}/cmdline"):
            out.add(int(entry))
    return out


def descendants(roots: set[int]) -> set[int]:
    """The processes under `roots`, and the roots, from /proc's parent links (host pids)."""
    children: dict[int, set[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            children.setdefault(_ppid(int(entry)), set()).add(int(entry))
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, ())
    return found


def survivors(marks: list[str], allowed: set[int], settle_s: float = 3.0) -> dict[int, str]:
    """Tagged processes other than `allowed`, after giving a just-killed job `settle_s` to disappear."""
    deadline = time.monotonic() + settle_s
    while True:
        left = {
            pid: cmd
            for pid, cmd in tagged_processes(marks).items()
            if pid not in allowed and _state(pid) not in ("Z", "X", "")
        }
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _state(pid: int) -> str:
    stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
    try:
        return stat.rsplit(")", 1)[1].split()[0]
    except IndexError:
        return ""


def kill_all(pids) -> None:
    """End processes a judgement left behind (only those tagged with this test's marks)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def sysv_shm_keys() -> dict[int, int]:
    """key -> shmid of the host's System V shared memory segments (this IPC namespace)."""
    found = {}
    for line in _read("/proc/sysvipc/shm").decode(errors="replace").splitlines()[1:]:
        parts = line.split()
        if len(parts) > 1:
            found[int(parts[0])] = int(parts[1])
    return found


def remove_sysv_shm(shmid: int) -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).shmctl(shmid, 0, None)  # IPC_RMID


def canary_key(canary: str) -> int:
    """The System V key an attack derives from its canary (must match the submission's formula)."""
    return int(canary[2:10], 16) & 0x7FFFFFFF


def peak_rss_mib(pid: int) -> float:
    for line in _read(f"/proc/{pid}/status").decode(errors="replace").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


# ---------------------------------------------------------------- secrets in learner-facing text


def strings_in(value) -> list[str]:
    """Every string inside a JSON-like value (keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *strings_in(v))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


def distinctive_lines(secret: Path, public: list[Path], min_len: int = 30) -> list[str]:
    """Lines of a secret file that no public file of the problem contains."""
    shown = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in public if p.is_file())
    lines = []
    for line in secret.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if len(line) >= min_len and line not in shown and not line.startswith(("#", '"""')):
            lines.append(line)
    return lines


def test_names(path: Path) -> set[str]:
    return set(re.findall(r"def (test_\w+)", path.read_text(encoding="utf-8")))


def shadow_lines() -> list[str]:
    try:
        return [line.strip() for line in Path("/etc/shadow").read_text().splitlines() if len(line.strip()) >= 10]
    except OSError:
        return []
