"""Which host paths a worker may read, which it must not see, and which it needs despite living in hidden places.

Computed once in the zygote. The worker needs the interpreter, its standard library and site-packages
(torch imports submodules lazily, e.g. under torch.compile) and the repository's judge/ and sandbox/
packages; nothing else of the repository (problems/ holds hidden tests and reference solutions).
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = str(Path(__file__).resolve().parent.parent)
WORKER_PACKAGES = ("judge", "sandbox")

SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev")
HIDDEN_DIRS = (
    "/root",
    "/home",
    "/tmp",
    "/var/tmp",
    "/run",
    "/mnt",
    "/media",
    "/srv",
    "/opt",
    "/var/lib",
    "/var/log",
    "/var/mail",
    "/var/spool",
    "/var/backups",
    "/var/cache",
    "/boot",
    "/lost+found",
)
HIDDEN_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/security/opasswd")
HIDDEN_ETC_DIRS = ("/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d")


def _real(path: str) -> str:
    return os.path.realpath(path)


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def python_paths() -> list[str]:
    """Directories (and zip files) the interpreter imports from, resolved, existing."""
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    candidates += site.getsitepackages()
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    candidates += [p for p in sys.path if p]
    found = []
    for path in candidates:
        real = _real(path)
        if os.path.exists(real) and real not in found:
            found.append(real)
    return found


def _outermost(paths: list[str]) -> list[str]:
    """Drop paths inside other paths of the list."""
    result: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(_under(path, kept) for kept in result):
            result.append(path)
    return result


@dataclass
class View:
    read: list[str] = field(default_factory=list)  # readable (and executable) trees
    keep: list[str] = field(default_factory=list)  # needed paths inside hidden dirs: bound back read-only
    hide_dirs: list[str] = field(default_factory=list)  # covered by an empty read-only tmpfs
    hide_files: list[str] = field(default_factory=list)  # covered by /dev/null

    def hidden(self, path: str) -> bool:
        path = _real(path)
        return (path in self.hide_files or any(_under(path, d) for d in self.hide_dirs)) and not any(
            _under(path, k) for k in self.keep
        )


def host_view(extra_hidden: Sequence[str] = (), repo_root: str = REPO_ROOT) -> View:
    repo_root = _real(repo_root)
    hide_dirs = [repo_root] + [d for d in HIDDEN_DIRS + HIDDEN_ETC_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    hide_files = [f for f in HIDDEN_FILES if os.path.isfile(f) and not os.path.islink(f)]
    for path in map(_real, extra_hidden):
        if os.path.isdir(path):
            hide_dirs.append(path)
        elif os.path.isfile(path):
            hide_files.append(path)
    # A python path that holds a hidden path (e.g. the repository root on sys.path, which an editable
    # install puts there) is not readable as a whole. Checked before nested hidden dirs are merged:
    # a repository under /tmp is hidden by /tmp's cover, but must not become readable through sys.path.
    python = [p for p in python_paths() if not any(_under(h, p) for h in hide_dirs + hide_files) or p in SYSTEM_READ]
    hide_dirs = _outermost(hide_dirs)
    packages = [
        os.path.join(repo_root, name) for name in WORKER_PACKAGES if os.path.isdir(os.path.join(repo_root, name))
    ]
    needed = _outermost(python + packages)
    read = _outermost([p for p in SYSTEM_READ if os.path.exists(p)] + needed)
    keep = [p for p in needed if any(_under(p, h) for h in hide_dirs)]
    return View(read=read, keep=keep, hide_dirs=hide_dirs, hide_files=hide_files)
