"""When each student handed in, from a source that can be trusted: the LMS's own names or metadata, a CSV of times
(`--submitted-at`), a Moodle grading worksheet (`--worksheet`), and file times only when asked (`--late-from-mtime`).

A Canvas or Moodle download carries no times of its own, and its files' times say when they were unpacked or copied:
the same folder copied without `cp -p` made a whole class fourteen days late. So file times never make a submission
late unless the instructor says so, and even then a set of file times that looks reset (all equal, or all after the
deadline) is refused, naming the options that give real times.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

from judge.batch.inputs import Entry
from judge.errors import JudgeError

# The columns a times CSV may name its student and its time with (Canvas's gradebook export, its API, a hand-made
# sheet): the first that is present wins; without a header row, the first two columns are read.
ID_COLUMNS = ("id", "student", "user_id", "sis user id", "identifier", "login_id")
TIME_COLUMNS = ("submitted_at", "submitted", "time", "last modified (submission)", "submission time")
MOODLE_TIME = "%A, %d %B %Y, %I:%M %p"  # "Tuesday, 1 December 2026, 9:10 PM", as the worksheet writes it


def parse_time(text: str) -> datetime | None:
    """An ISO 8601 time (no zone: UTC) or Moodle's worksheet format; None for an empty cell or Moodle's "-"."""
    text = text.strip()
    if not text or text == "-":
        return None
    for parse in (datetime.fromisoformat, lambda t: datetime.strptime(t, MOODLE_TIME)):
        try:
            when = parse(text.replace("Z", "+00:00"))
        except ValueError:
            continue
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    raise JudgeError(f"cannot read the time {text!r}: give ISO 8601 (2026-03-01T23:59:00+08:00) or Moodle's format")


def read_times(path: Path) -> dict[str, datetime]:
    """{student id: when it was handed in} from a CSV (see ID_COLUMNS, TIME_COLUMNS) or a Moodle grading worksheet
    ("Identifier" is "Participant <id>", "Last modified (submission)" the time)."""
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        return {}
    header = [cell.strip().lower() for cell in rows[0]]
    id_at = next((header.index(c) for c in ID_COLUMNS if c in header), None)
    time_at = next((header.index(c) for c in TIME_COLUMNS if c in header), None)
    body = rows[1:] if id_at is not None or time_at is not None else rows
    id_at = 0 if id_at is None else id_at
    time_at = 1 if time_at is None else time_at
    times: dict[str, datetime] = {}
    for row in body:
        if len(row) <= max(id_at, time_at):
            continue
        student = row[id_at].strip().removeprefix("Participant ").strip()
        when = parse_time(row[time_at])
        if student and when is not None:
            times[student] = when
    return times


def worksheet_language(path: Path) -> str | None:
    """The course's language as an LMS worksheet shows it: its header row in Chinese ("zh") or in English ("en", a
    Moodle worksheet's "Identifier" and "Full name"), else None."""
    try:
        first = next(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    header = " ".join(first)
    if any("\u4e00" <= ch <= "\u9fff" for ch in header):
        return "zh"
    return "en" if {"identifier", "full name"} & {cell.strip().lower() for cell in first} else None


def apply_times(entries: list[Entry], times: dict[str, datetime], source: str) -> int:
    """Each entry the times name gets that time, from `source`; how many did."""
    count = 0
    for entry in entries:
        when = times.get(entry.student)
        if when is not None:
            entry.submitted, entry.submitted_from = when, source
            count += 1
    return count


def check_file_times(entries: list[Entry], deadline: datetime | None, late_from_mtime: bool) -> tuple[str, str]:
    """(refusal, warning) about entries whose only time is their files': with --late-from-mtime, file times that look
    reset (all equal, or all after the deadline) are refused; without it they make no one late, and the warning says
    how many were left untimed and which options give real times."""
    if deadline is None:
        return "", ""
    timed_by_files = [e for e in entries if e.submitted_from == "file" and e.layout != "plain" and e.submitted]
    if not timed_by_files:
        return "", ""
    how = (
        "give the times with --submitted-at FILE (a CSV of student id and time, from the LMS's gradebook or API) or "
        "--worksheet FILE (Moodle's grading worksheet)"
    )
    if not late_from_mtime:
        return "", (
            f"{len(timed_by_files)} submissions carry no time but their files', which say when the download was "
            f"unpacked or copied: none of them is marked late by it; {how}, or add --late-from-mtime to trust them"
        )
    moments = {e.submitted for e in timed_by_files}
    after = all(e.submitted is not None and e.submitted > deadline for e in timed_by_files)
    if len(timed_by_files) > 1 and (len(moments) == 1 or after):
        what = "all the same" if len(moments) == 1 else "all after the deadline"
        return (
            f"refusing --late-from-mtime: the files' times of {len(timed_by_files)} submissions are {what}, as a copy "
            f"without -p or an unzip leaves them; {how}"
        ), ""
    return "", ""
