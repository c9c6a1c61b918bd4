"""Reports cached on disk under what produced them: submission hash, problem digest, judge and torch versions."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from judge.report.models import Report, Verdict


class ReportCache:
    """One JSON file per key under folder; written atomically, so an interrupted run leaves no torn entry."""

    def __init__(self, folder: Path, problem_digest: str, versions: dict[str, str]):
        self.folder = folder
        self.salt = json.dumps({"problem": problem_digest, **versions}, sort_keys=True)  # judge, torch, python

    def key(self, sha256: str) -> str:
        return hashlib.sha256(f"{sha256}\0{self.salt}".encode()).hexdigest()

    def get(self, sha256: str) -> Report | None:
        try:
            return Report.model_validate_json((self.folder / f"{self.key(sha256)}.json").read_bytes())
        except (OSError, ValidationError, ValueError):
            return None  # missing or unreadable: judge again

    def put(self, sha256: str, report: Report) -> None:
        if report.verdict == Verdict.internal_error:
            return  # a fault of the judge is never remembered: the next run tries again
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / f"{self.key(sha256)}.json", report.model_dump_json().encode())


def write_atomic(path: Path, data: bytes) -> None:
    """Write then rename: a reader (or a re-run after Ctrl-C) sees the old file or the new one, never half.

    Readable by the group (a TA group shares the outputs), whatever the umask: mkstemp alone makes them 0600."""
    shared_folder(path.parent)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, _file_mode())
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # once, at import: os.umask can only be read by setting it, which races other threads


def _file_mode() -> int:
    return (0o666 & ~_UMASK) | 0o640


def shared_folder(folder: Path) -> None:
    """Create the folder (and parents) and let the group enter and read it."""
    missing = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            break
        missing.append(parent)
    folder.mkdir(parents=True, exist_ok=True)
    for made in missing:
        try:
            os.chmod(made, made.stat().st_mode | 0o750)
        except OSError:
            pass  # not ours to change: leave it as it is
