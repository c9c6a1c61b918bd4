"""The worker's filesystem view, built inside its own mount namespace (as root, before privileges drop).

- every existing mount becomes private (nothing propagates back to the host), read-only and nosuid;
- hidden directories are covered by an empty read-only tmpfs, hidden files by /dev/null; paths the worker
  needs inside them (the interpreter under a 0700 /root, the judge's own packages) are bound back read-only;
- the job's scratch folder is a private, size-limited tmpfs owned by the worker's uid, holding a copy of
  what the workdir held; its writes never reach the host;
- /dev/shm is a private, size-limited tmpfs; /proc is remounted for the job's pid namespace and /sys for
  its network namespace (no host interfaces, no cgroup tree).
"""

from __future__ import annotations

import os
import shutil
import stat

from sandbox import syscalls
from sandbox.base import JobSpec
from sandbox.paths import View, _under

_RO = syscalls.MS_RDONLY | syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC


def build(view: View, scratch: str, spec: JobSpec, uid: int, gid: int, new_proc: bool) -> None:
    """The job's mount view: a read-only private root with `view`'s folders hidden, a private scratch tmpfs holding
    a copy of spec.workdir (noexec unless spec.scratch_exec), a private /dev/shm, and a /proc of its own."""
    workdir, scratch_bytes, shm_bytes = spec.workdir, spec.scratch_bytes, spec.shm_bytes
    source = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY) if workdir else None
    kept = {path: os.open(path, os.O_PATH) for path in view.keep if os.path.exists(path)}
    try:
        _read_only_private_root()
        for path in view.hide_dirs:
            _cover_dir(path, kept, scratch)
        for path in view.hide_files:
            _bind("/dev/null", path, read_only=True)
        _tmpfs(scratch, f"size={scratch_bytes},mode=0700,uid={uid},gid={gid}", noexec=not spec.scratch_exec)
        if source is not None:
            _copy_tree(source, scratch, uid, gid)
        if os.path.isdir("/dev/shm"):
            _tmpfs("/dev/shm", f"size={shm_bytes},mode=1777", noexec=True)
        if new_proc:
            syscalls.mount("proc", "/proc", "proc", syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC)
        _fresh_sysfs()
    finally:
        for fd in list(kept.values()) + ([source] if source is not None else []):
            os.close(fd)


def _fresh_sysfs() -> None:
    """A sysfs of the job's own network namespace, without the host's cgroup mounts (best effort)."""
    try:
        syscalls.mount("sysfs", "/sys", "sysfs", _RO)
    except OSError:
        pass  # the host's /sys stays, read-only


def _read_only_private_root() -> None:
    attrs = syscalls.MOUNT_ATTR_RDONLY | syscalls.MOUNT_ATTR_NOSUID
    try:
        syscalls.mount_setattr("/", attrs, propagation=syscalls.MS_PRIVATE, recursive=True)
        return
    except OSError as exc:
        if exc.errno not in (38, 22):  # ENOSYS / EINVAL: kernel older than 5.12, remount one by one
            raise
    syscalls.mount(None, "/", None, syscalls.MS_REC | syscalls.MS_PRIVATE)
    for target in reversed(_mount_points()):
        try:
            syscalls.mount(
                None,
                target,
                None,
                syscalls.MS_REMOUNT | syscalls.MS_BIND | syscalls.MS_RDONLY | syscalls.MS_NOSUID | _flags_of(target),
            )
        except OSError:
            pass  # e.g. a mount under a covered path


def _mount_points() -> list[str]:
    with open("/proc/self/mountinfo") as fh:
        return [line.split()[4].encode().decode("unicode_escape") for line in fh]


def _flags_of(target: str) -> int:
    st = os.statvfs(target)
    flags = 0
    for bit, mflag in ((os.ST_NODEV, syscalls.MS_NODEV), (os.ST_NOEXEC, syscalls.MS_NOEXEC)):
        if st.f_flag & bit:
            flags |= mflag
    return flags


def _tmpfs(target: str, options: str, noexec: bool) -> None:
    flags = syscalls.MS_NOSUID | syscalls.MS_NODEV | (syscalls.MS_NOEXEC if noexec else 0)
    syscalls.mount("tmpfs", target, "tmpfs", flags, options)


def _bind(source: str, target: str, read_only: bool) -> None:
    syscalls.mount(source, target, None, syscalls.MS_BIND | syscalls.MS_REC)
    if read_only:
        syscalls.mount(
            None,
            target,
            None,
            syscalls.MS_REMOUNT | syscalls.MS_BIND | syscalls.MS_RDONLY | syscalls.MS_NOSUID | _flags_of(target),
        )


def _cover_dir(path: str, kept: dict[str, int], scratch: str) -> None:
    """An empty read-only tmpfs over path, with kept paths (and the scratch mount point) inside it."""
    _tmpfs(path, "size=64k,mode=0755", noexec=True)
    inside = [k for k in kept if _under(k, path) and k != path]
    for target in inside:
        if stat.S_ISDIR(os.fstat(kept[target]).st_mode):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:  # e.g. a zip file on sys.path
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            open(target, "a").close()
    if _under(scratch, path) and scratch != path:
        os.makedirs(scratch, mode=0o755, exist_ok=True)
    for target in inside:
        _bind(f"/proc/self/fd/{kept[target]}", target, read_only=True)
    syscalls.mount(None, path, None, syscalls.MS_REMOUNT | syscalls.MS_BIND | _RO)


def _copy_tree(source_fd: int, scratch: str, uid: int, gid: int) -> None:
    """Copy the workdir (regular files and folders; links are skipped) into the scratch tmpfs."""
    for top, dirs, files, top_fd in os.fwalk(".", dir_fd=source_fd):
        dest = os.path.normpath(os.path.join(scratch, top))
        for name in dirs:
            os.mkdir(os.path.join(dest, name), 0o700)
            os.chown(os.path.join(dest, name), uid, gid)
        for name in files:
            st = os.stat(name, dir_fd=top_fd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                continue
            target = os.path.join(dest, name)
            src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=top_fd)
            with os.fdopen(src, "rb") as fin, open(target, "wb") as fout:
                shutil.copyfileobj(fin, fout)
            os.chmod(target, st.st_mode & 0o755)
            os.chown(target, uid, gid)
