"""What DIR holds of earlier runs: their problem, options and rows, so that a run merges into them, never over them."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from judge.batch.cache import write_atomic
from judge.batch.policy import GradeOptions
from judge.batch.rows import Row

STATE = Path(".cache") / "batch-state.json"
# What a run writes in DIR (besides the cache): what --replace moves aside.
OUTPUTS = (
    "grades.csv",
    "grades.xlsx",
    "reports.jsonl",
    "junit.xml",
    "similarity.csv",
    "skipped.csv",
    "class-report.html",
    "canvas.csv",
    "moodle.csv",
    "feedback",
    "gradescope",
    str(STATE),
)


class State(BaseModel):
    problem: str
    options: GradeOptions = Field(default_factory=GradeOptions)
    rows: list[Row] = Field(default_factory=list)


def load(out: Path) -> State | None:
    """The earlier runs' state in DIR; None when DIR holds none."""
    try:
        return State.model_validate_json((out / STATE).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def previous_problem(out: Path) -> str | None:
    """The problem DIR holds results of: from the saved state, else from reports.jsonl (outputs of older versions)."""
    saved = load(out)
    if saved is not None:
        return saved.problem
    try:
        with (out / "reports.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                report = json.loads(line).get("report") or {}
                if report.get("problem"):
                    return str(report["problem"])
    except (OSError, ValueError, AttributeError):
        return None
    return None


def save(out: Path, problem: str, options: GradeOptions, rows: list[Row]) -> None:
    write_atomic(out / STATE, State(problem=problem, options=options, rows=rows).model_dump_json().encode("utf-8"))


def merge(earlier: list[Row], new: list[Row]) -> list[Row]:
    """Rows by student id: this run's replace the earlier ones of the same students; the rest are kept."""
    rows = {row.student: row for row in earlier}
    rows.update({row.student: row for row in new})
    return sorted(rows.values(), key=lambda r: r.student)


def move_aside(out: Path) -> Path | None:
    """--replace: the earlier outputs go to DIR/previous-<time>/ (nothing is deleted); the folder, or None."""
    present = [name for name in OUTPUTS if (out / name).exists()]
    if not present:
        return None
    aside = out / f"previous-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}"
    for name in present:
        target = aside / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(out / name), str(target))
    return aside
