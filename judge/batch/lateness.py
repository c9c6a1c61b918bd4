"""When each student handed in, from a source that can be trusted: the LMS's own names or metadata, a times file
(`--submitted-at`: Canvas's API dump or CSV export, a hand-made sheet), a Moodle grading worksheet (`--worksheet`),
and file times only when asked (`--late-from-mtime`).

A Canvas or Moodle download carries no times of its own, and its files' times say when they were unpacked or copied:
the same folder copied without `cp -p` made a whole class fourteen days late. So file times never make a submission
late unless the instructor says so, and even then a set of file times that look reset (all equal, or all after the
deadline) is refused, naming the options that give real times.

A times file is matched to the download by its student column: of the columns that may name a student, the one
whose values name the most students of the download. Canvas's API dump names the student `user_id`; its `id` is
the submission's, never a student's.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from judge.batch.inputs import Entry
from judge.batch.zones import in_zone
from judge.errors import JudgeError

# The columns that may name the student, in the order a tie between them is settled (Canvas's API: user_id; its CSV
# exports: Student ID, SIS User ID, ID (the gradebook's Canvas user id); Moodle's worksheet: Identifier).
ID_COLUMNS = ("user_id", "student id", "identifier", "sis user id", "student", "id", "login_id", "sis login id")
# `id` is a submission's in a dump of submissions (these columns say it is one): never read as a student there.
SUBMISSION_FIELDS = {"user_id", "assignment_id", "submission_type", "workflow_state", "attempt"}
TIME_COLUMNS = ("submitted_at", "submitted", "submitted at", "time", "last modified (submission)", "submission time")
MOODLE_TIME = "%A, %d %B %Y, %I:%M %p"  # "Saturday, 28 November 2026, 11:40 PM", as the worksheet writes it


def parse_time(text: str) -> datetime | None:
    """An ISO 8601 time or Moodle's worksheet format, with its zone if it carries one, else zone-less (the caller
    reads it in the course's zone: judge.batch.zones); None for an empty cell or Moodle's "-"."""
    text = text.strip()
    if not text or text in ("-", "None", "null", "NaT", "nan"):
        return None
    for parse in (datetime.fromisoformat, lambda t: datetime.strptime(t, MOODLE_TIME)):
        try:
            return parse(text.replace("Z", "+00:00"))
        except ValueError:
            continue
    raise JudgeError(f"cannot read the time {text!r}: give ISO 8601 (2026-03-01T23:59:00+08:00) or Moodle's format")


@dataclass
class TimesFile:
    """A times file as read: its rows' cells by column (lower-cased names), and where its times are."""

    path: Path
    source: str  # the option that gave it: "submitted-at" or "worksheet"
    rows: list[dict[str, str]]
    time_column: str
    id_columns: list[str]
    zoneless: bool = False  # some of its times carry no zone
    times: list[datetime | None] = field(default_factory=list)  # each row's time, zone-less ones as written

    def read_in(self, zone: tzinfo) -> None:
        """Each row's time, a zone-less one read in the course's zone."""
        self.times = [in_zone(t, zone) if t is not None else None for t in self.times]

    def match(self, students: set[str], aliases: dict[str, str] | None = None) -> Matched:
        """{student: time} through the id column that names the most students of the download (aliases: other ids
        of a student, such as the gradebook's SIS User ID, to the id the download uses)."""
        aliases = aliases or {}
        best: Matched | None = None
        timed = [(row, when) for row, when in zip(self.rows, self.times) if when is not None]
        for column in self.id_columns:
            found: dict[str, datetime] = {}
            for row, when in timed:
                key = _student(row.get(column, ""))
                key = key if key in students else aliases.get(key, "")
                if key in students:
                    found[key] = when
            if best is None or len(found) > len(best.times):
                best = Matched(column, found, len(timed), len(self.rows) - len(timed))
        return best or Matched("", {}, len(timed), len(self.rows) - len(timed))

    def summary(self, matched: Matched) -> str:
        """The one line the run prints: "N of M rows matched students of the download", and how it read them."""
        untimed = f"; {matched.untimed} rows carry no time" if matched.untimed else ""
        return (
            f"--{self.source} {self.path.name}: {len(matched.times)} of {matched.rows} rows matched students of the "
            f"download (student from column {matched.column!r}, time from {self.time_column!r}{untimed})"
        )

    def no_match(self, students: set[str]) -> str:
        """Why no row matched: the file, the columns read, and what the download's ids look like."""
        sample = ", ".join(sorted(students)[:3])
        return (
            f"--{self.source} {self.path}: none of its rows matched a student of the download; read the student from "
            f"{', '.join(repr(c) for c in self.id_columns) or 'no column'} and the time from {self.time_column!r}. "
            f"The download's students are its LMS ids (such as {sample}): give a file whose student column holds them "
            "(Canvas's API: user_id, not the submission's id; Canvas's CSV: Student ID or SIS User ID)"
        )


@dataclass
class Matched:
    column: str
    times: dict[str, datetime]
    rows: int  # rows with a time
    untimed: int


def read_times(path: Path, source: str = "submitted-at") -> TimesFile:
    """A times file: a CSV (Canvas's CSV export, its API dump written by pandas, a hand-made sheet, a Moodle grading
    worksheet) or JSON (records, JSON lines, or pandas' column orientation); see ID_COLUMNS and TIME_COLUMNS."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeError(f"--{source} {path}: cannot read it ({exc})") from None
    rows = _json_rows(text) if path.suffix.lower() in (".json", ".jsonl") else _csv_rows(text)
    header = list(dict.fromkeys(k for row in rows for k in row))
    time_column = next((c for c in TIME_COLUMNS if c in header), None)
    ids = [c for c in ID_COLUMNS if c in header and not (c == "id" and SUBMISSION_FIELDS & set(header))]
    if time_column is None or not ids:
        raise JudgeError(
            f"--{source} {path}: its columns ({', '.join(header[:12]) or 'none'}) name no "
            + ("time (submitted_at, Submitted, Last modified (submission))" if time_column is None else "student")
            + " column; Canvas's gradebook export has no submission times: use its API's submissions "
            "(user_id, submitted_at) or Moodle's grading worksheet"
        )
    times = [parse_time(row.get(time_column, "")) for row in rows]
    zoneless = any(t is not None and t.tzinfo is None for t in times)
    return TimesFile(path, source, rows, time_column, ids, zoneless, times)


def _csv_rows(text: str) -> list[dict[str, str]]:
    reader = list(csv.reader(io.StringIO(text, newline="")))
    if not reader:
        return []
    header = [cell.strip().lower() for cell in reader[0]]
    if len(header) >= 2 and _is_time(header[1]):  # no header row: student id, then time
        header, reader = ["student", "submitted_at"], [[], *reader]
    return [dict(zip(header, (cell.strip() for cell in row))) for row in reader[1:] if any(c.strip() for c in row)]


def _json_rows(text: str) -> list[dict[str, str]]:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]  # JSON lines
    if isinstance(data, dict) and all(isinstance(v, dict) for v in data.values()):  # pandas' default: by column
        index = list(dict.fromkeys(k for column in data.values() for k in column))
        data = [{c: data[c].get(i) for c in data} for i in index]
    if not isinstance(data, list):
        raise JudgeError("a JSON times file holds a list of records (one per submission)")
    return [{str(k).strip().lower(): _cell(v) for k, v in r.items()} for r in data if isinstance(r, dict)]


def _cell(value: object) -> str:
    return "" if value is None else str(value).strip()


def _student(cell: str) -> str:
    """A student's id as a cell writes it: Moodle's "Participant 123", a float 1001.0 from a spreadsheet."""
    cell = cell.strip().removeprefix("Participant ").strip()
    return cell[:-2] if cell.endswith(".0") and cell[:-2].isdigit() else cell


def _is_time(cell: str) -> bool:
    try:
        return parse_time(cell) is not None
    except JudgeError:
        return False


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
    """Each entry the times name gets that time, from `source`; how many did.

    A times file holds each student's latest hand-in (Moodle's "Last modified (submission)", Canvas's submitted_at):
    it times the latest attempt only. An earlier attempt that is kept (--attempt first or best) keeps its own time."""
    count = 0
    for entry in entries:
        when = times.get(entry.student)
        if when is None:
            continue
        count += 1
        latest = entry.versions[-1] if entry.versions else entry
        latest.submitted, latest.submitted_from = when, source
        if latest.origin == entry.origin:
            entry.submitted, entry.submitted_from = when, source
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
        "give the times with --submitted-at FILE (Canvas's submissions from its API, user_id and submitted_at, or a "
        "CSV of student id and time) or --worksheet FILE (Moodle's grading worksheet)"
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
