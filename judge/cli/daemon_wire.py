"""The warm local judge's address, identity and wire format; light to import (the CLI reads it before every run)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

from judge.settings import Settings
from judge.versions import judge_versions

# Settings that change what the learner reads or where the daemon lives, never a verdict: a CLI run that differs
# only in these shares one warm judge. Every other setting (sandbox, runners, limits, images...) is its identity.
NOT_IDENTITY = frozenset({"lang", "solutions_dir", "daemon", "daemon_idle", "daemon_dir"})
# Variables outside PRACTICE_* that the runners read.
OTHER_ENV = ("DOCKER_HOST", "CUDA_VISIBLE_DEVICES")
MAX_LINE = 64 << 20  # a request carries a submission (at most max_source_bytes, base64) and nothing else large


def runtime_dir(settings: Settings) -> Path | None:
    """A folder only this user can enter: PRACTICE_DAEMON_DIR, $XDG_RUNTIME_DIR/practice-judge, or
    /tmp/practice-judge-<uid>; None when the one found is not ours alone (then nothing is served from it)."""
    if settings.daemon_dir is not None:
        folder = Path(settings.daemon_dir)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "practice-judge"
    else:
        folder = Path("/tmp") / f"practice-judge-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        return None  # someone else's folder, a link, or one others can enter: judge in-process instead
    return folder


def identity(settings: Settings) -> dict[str, Any]:
    """Everything but the problem's own digest that can change a verdict: versions, the judge's code as installed,
    the problems folder, the judging settings and the runners' environment."""
    judging = settings.model_dump(mode="json", exclude=set(NOT_IDENTITY))
    return {
        **judge_versions(),
        "code": code_digest(),
        "problems_dir": str(Path(settings.problems_dir).resolve()),
        "settings": judging,
        "env": {name: os.environ.get(name, "") for name in OTHER_ENV},
    }


def code_digest() -> str:
    """Name, size and modification time of every module of the judge and the sandbox, and of the catalogue's
    texts: an edited checkout (an editable install keeps its version number) is a new judge."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for package in ("judge", "sandbox"):
        for path in sorted([*(root / package).rglob("*.py"), *(root / package).rglob("*.toml")]):
            info = path.stat()
            h.update(f"{path.relative_to(root)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def socket_path(settings: Settings, ident: dict[str, Any]) -> Path | None:
    """One socket per problems folder and judging settings: other settings get a judge of their own."""
    folder = runtime_dir(settings)
    if folder is None:
        return None
    key = json.dumps([ident["problems_dir"], ident["settings"], ident["env"]], sort_keys=True)
    return folder / f"judge-{hashlib.sha256(key.encode()).hexdigest()[:16]}.sock"


def ended_note(path: Path) -> Path:
    """Where a warm judge that ended by itself (idle) says so, beside its socket, for the next run to tell."""
    return path.with_suffix(".ended")


def send(conn: socket.socket, message: dict[str, Any]) -> None:
    """One JSON object per line; ASCII on the wire (a file name's lone surrogates survive as escapes)."""
    conn.sendall(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")


class Lines:
    """Reads JSON objects, one per line, from a stream socket; None once the other end is gone."""

    def __init__(self, conn: socket.socket):
        self.conn, self.buf = conn, b""

    def read(self) -> dict[str, Any] | None:
        while b"\n" not in self.buf:
            try:
                chunk = self.conn.recv(1 << 16)
            except (ConnectionError, OSError):
                return None
            if not chunk or len(self.buf) > MAX_LINE:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            return None
        return message if isinstance(message, dict) else None
