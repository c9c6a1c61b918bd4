"""One progress for the terminal and the page: each records its last judgement of an exercise in the data folder
(progress.json, beside the page's SQLite database), and each shows the other's, when both use the same folder.

The CLI (`python practice/judge.py`) writes its side after every judgement of the learner's own file, and its
`--list` reads the page's; a page served by `judge serve` on the learner's machine (the in-process pool) writes its
side and shows the terminal's. A server elsewhere (a queue deployment, a remote host) cannot meet the learner's
terminal: it writes nothing here, and the page says so.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

FILE = "progress.json"
Side = Literal["cli", "page"]


class Entry(BaseModel):
    """One front end's last judgement of one exercise, and the day it was first solved there."""

    verdict: str
    mode: str
    at: datetime
    solved: str | None = Field(None, description="The day every test was first accepted (a whole submit).")


class Progress(BaseModel):
    cli: dict[str, Entry] = Field(default_factory=dict)
    page: dict[str, Entry] = Field(default_factory=dict)


def path_in(data_dir: Path) -> Path:
    return data_dir / FILE


def read(data_dir: Path) -> Progress:
    """What both front ends recorded in `data_dir` (nothing, when the file is absent or not ours)."""
    try:
        return Progress.model_validate_json(path_in(data_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return Progress()


def record(data_dir: Path, side: Side, problem_id: str, verdict: str, mode: str, whole: bool) -> None:
    """`side`'s judgement of `problem_id`: its verdict now, and solved once accepted on every test (a submit with no
    tier left to do); a later failure never undoes that it was solved. A folder that cannot be written forgets."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        with _locked(data_dir):
            progress = read(data_dir)
            entries = getattr(progress, side)
            earlier: Entry | None = entries.get(problem_id)
            solved = earlier.solved if earlier is not None else None
            if verdict == "accepted" and mode == "submit" and whole:
                solved = solved or datetime.now(UTC).strftime("%Y-%m-%d")
            entries[problem_id] = Entry(verdict=verdict, mode=mode, at=datetime.now(UTC), solved=solved)
            draft = path_in(data_dir).with_suffix(f".{os.getpid()}.tmp")
            draft.write_text(progress.model_dump_json(indent=1), encoding="utf-8")
            os.replace(draft, path_in(data_dir))
    except OSError:
        pass  # progress is a convenience: a read-only or full disk still judges


@contextmanager
def _locked(data_dir: Path) -> Any:
    fd = os.open(data_dir / ".progress.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def as_json(entries: dict[str, Entry]) -> dict[str, Any]:
    return {key: json.loads(entry.model_dump_json()) for key, entry in entries.items()}
