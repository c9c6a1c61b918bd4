"""The instructor's own hand in the grades: per-student deadlines (`--extensions`) and points (`--adjustments`).

Both are CSVs keyed by the student id as grades.csv's student column names it (the layout's: a Canvas user id, a
Moodle participant id). They are saved with DIR's options, so they survive `--only` and cached re-runs; a row that
names no student of the download is an error, never silently dropped.
"""

from __future__ import annotations

import csv
import io
import math
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from judge.batch.zones import parse_moment
from judge.errors import JudgeError


class Adjustment(BaseModel):
    """Points the instructor adds (or, negative, takes off) after the late penalty, and why (shown to the student)."""

    points: float
    reason: str = ""


def _rows(path: Path, option: str, columns: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """(line number, cells) of each data row; a header row naming the columns is skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeError(f"--{option} {path}: cannot read it ({exc})") from None
    rows = [(n, [c.strip() for c in row]) for n, row in enumerate(csv.reader(io.StringIO(text, newline="")), 1)]
    rows = [(n, row) for n, row in rows if any(row)]
    if rows and [c.lower() for c in rows[0][1][: len(columns)]] == list(columns):
        rows = rows[1:]
    for number, row in rows:
        if len(row) < len(columns) - (1 if columns[-1] == "reason" else 0) or not row[0]:
            raise JudgeError(f"--{option} {path}, line {number}: expected {','.join(columns)}, found {row!r}")
    return rows


def read_extensions(path: Path) -> dict[str, datetime]:
    """{student: their own deadline} from a CSV of student,deadline, each with the zone it carries or none (the
    caller reads those in the course's zone: judge.batch.zones.in_zone)."""
    out: dict[str, datetime] = {}
    for number, row in _rows(path, "extensions", ("student", "deadline")):
        try:
            out[row[0]] = parse_moment(row[1])
        except ValueError:
            raise JudgeError(
                f"--extensions {path}, line {number}: {row[1]!r} is not an ISO 8601 time (e.g. 2026-12-02T23:59)"
            ) from None
    return out


def read_adjustments(path: Path) -> dict[str, Adjustment]:
    """{student: Adjustment} from a CSV of student,points,reason; a student's several rows add up."""
    out: dict[str, Adjustment] = {}
    for number, row in _rows(path, "adjustments", ("student", "points", "reason")):
        try:
            points = float(row[1])
        except ValueError:
            points = math.nan
        if not math.isfinite(points):
            raise JudgeError(f"--adjustments {path}, line {number}: {row[1]!r} is not a number of points (e.g. -2.5)")
        reason = ",".join(row[2:]).strip()
        kept = out.get(row[0])
        if kept is not None:
            points, reason = kept.points + points, "; ".join(r for r in (kept.reason, reason) if r)
        out[row[0]] = Adjustment(points=points, reason=reason)
    return out


def unmatched(option: str, students: set[str], named: list[str]) -> str:
    """The error for rows of --extensions or --adjustments that name no student of the download, or ""."""
    missing = [s for s in named if s not in students]
    if not missing:
        return ""
    sample = ", ".join(sorted(students)[:3])
    return (
        f"--{option}: {len(missing)} row(s) name no student of the download: {', '.join(missing[:10])}; the student "
        f"column holds ids as grades.csv's student column does (such as {sample})"
    )
