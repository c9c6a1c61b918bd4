"""The machine-readable outputs: grades.csv, reports.jsonl, JUnit XML and Gradescope results.json."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from datetime import datetime, tzinfo
from typing import Any

from judge.batch.checks import column
from judge.batch.feedback import grade_notes, lms_comment, scrubbed
from judge.batch.rows import ALL_COLUMNS, NO_OPERATORS_NOTE, REJECTED, UNCHANGED_NOTE, Row
from judge.batch.spreadsheet import csv_bytes, formula_like
from judge.report.i18n import Lang
from judge.report.models import Outcome
from judge.report.textsafe import valid

JUNIT_STATUS = {Outcome.failed: "failure", Outcome.error: "error", Outcome.skipped: "skipped"}


def grades_header(rows: list[Row]) -> list[str]:
    """grades.csv's columns: ALL_COLUMNS, then a points column for each check group, in the order the exercise's
    cases run (a row that was not judged has 0 in each)."""
    names = dict.fromkeys(name for row in rows for name in row.checks)
    return ALL_COLUMNS + [column(name) for name in names]


def _cells(row: Row, header: list[str], lang: Lang, zone: tzinfo | None) -> list[str]:
    record = row.csv_record(lang, zone)
    return [record.get(name, "0.00" if name.startswith("points:") else "") for name in header]


def grades_csv(rows: list[Row], lang: Lang, zone: tzinfo | None = None) -> bytes:
    """UTF-8 without a byte-order mark, as before (tools read it); grades.xlsx is the one for spreadsheets. Every
    cell is safe to open (judge.batch.spreadsheet): a name or file name starting with `=` is not a formula. Times
    are shown in `zone`, the course's."""
    header = grades_header(rows)
    return csv_bytes(header, (_cells(row, header, lang, zone) for row in rows))


NUMERIC = {"score", "passed", "total", "duration_s", "points", "max_points", "late_penalty", "adjustment"}


def grades_xlsx(rows: list[Row], lang: Lang, zone: tzinfo | None = None) -> bytes:
    """The grades.csv table as a workbook: Excel opens its Chinese notes as written (it guesses a CSV's encoding)."""
    from openpyxl import Workbook  # noqa: PLC0415 - only when writing
    from openpyxl.worksheet.worksheet import Worksheet  # noqa: PLC0415

    book = Workbook()
    sheet = book.active
    assert isinstance(sheet, Worksheet)  # a new workbook's one sheet
    sheet.title = "grades"
    header = grades_header(rows)
    sheet.append(header)
    for row in rows:
        sheet.append([_cell(name, _xml(value)) for name, value in zip(header, _cells(row, header, lang, zone))])
        for cell in sheet[sheet.max_row]:
            # openpyxl writes text starting with "=" as a formula: text the student chose stays a string cell
            if isinstance(cell.value, str) and formula_like(cell.value):
                cell.data_type = "s"
    sheet.freeze_panes = "B2"
    sheet.auto_filter.ref = sheet.dimensions
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def _cell(name: str, value: str) -> str | float:
    if (name in NUMERIC or name.startswith("points:")) and value:
        try:
            return float(value)
        except ValueError:
            return value
    return value


def skipped_csv(skipped: list[tuple[str, str]]) -> bytes:
    return csv_bytes(["path", "reason"], skipped)


def canvas_csv(rows: list[Row], column: str, gradebook: dict[str, list[str]] | None = None) -> bytes:
    """Canvas's gradebook import: Student, ID (the Canvas user id), SIS User ID, SIS Login ID, Section, then the
    assignment's column holding points (after the late penalty and the instructor's adjustment); a "Points Possible"
    row says the total. Only Canvas students are listed. gradebook: a Canvas user id -> its Student, SIS User ID,
    SIS Login ID and Section as the instructor's gradebook export writes them (--gradebook): the students are named
    as Canvas names them ("Alvarez, Maria"), not as the download's file names do (alvarezmaria)."""
    gradebook = gradebook or {}
    possible = next((r.max_points for r in rows), 0.0)
    body = [["    Points Possible", "", "", "", "", f"{possible:g}"]]
    for row in rows:
        if row.layout == "canvas":
            student, sis, login, section = gradebook.get(row.student) or [row.name or row.student, "", "", ""]
            body.append([student, row.student, sis, login, section, f"{row.points:g}"])
    # Canvas reads UTF-8; the mark keeps Excel from garbling names
    return csv_bytes(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column], body, "utf-8-sig")


MOODLE_COLUMNS = [
    "Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
    "Last modified (submission)", "Last modified (grade)", "Feedback comments",
]  # fmt: skip
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip


def moodle_csv(rows: list[Row], lang: Lang, zone: tzinfo | None = None) -> bytes:
    """Moodle's offline grading worksheet (assignment > "Upload grading worksheet"), with the columns and order of
    the worksheet Moodle exports. Its import (assignfeedback_offline) needs "Identifier" ("Participant <id>" from
    the download's folder names), "Grade" (the points after penalties) and "Last modified (grade)", which holds "-"
    as Moodle's export does for a grade not yet given (no time: Moodle imports the grade without checking that it
    was changed in Moodle since). "Last modified (submission)" is when the student handed it in, where known;
    "Feedback comments" holds the summary. UTF-8 without a byte-order mark: Moodle matches the first column's name
    exactly. Only Moodle students are listed. Times are written in `zone`, the course's, as Moodle wrote them."""
    body = [
        [f"Participant {row.student}", row.name, "", "Submitted for grading", f"{row.points:.2f}",
         f"{row.max_points:.2f}", "Yes", _moodle_time(_in(row.submitted, zone)), "-", _comment(row, lang, zone)]
        for row in rows
        if row.layout == "moodle"
    ]  # fmt: skip
    return csv_bytes(MOODLE_COLUMNS, body)


def _in(when: datetime | None, zone: tzinfo | None) -> datetime | None:
    return when.astimezone(zone) if when is not None and zone is not None else when


def _moodle_time(when: datetime | None) -> str:
    """Moodle's own date format, in English and whatever zone the time carries: "Tuesday, 1 December 2026, 9:10 PM"."""
    if when is None:
        return ""
    hour = when.hour % 12 or 12
    return (
        f"{_WEEKDAYS[when.weekday()]}, {when.day} {_MONTHS[when.month - 1]} {when.year}, "
        f"{hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"
    )


def _comment(row: Row, lang: Lang, zone: tzinfo | None = None) -> str:
    """What the student reads in Moodle: the short form of their feedback file (judge.batch.feedback)."""
    return lms_comment(row, lang, zone=zone)


def canvas_comments_csv(rows: list[Row], lang: Lang, zone: tzinfo | None = None) -> bytes:
    """Canvas's gradebook import takes points only, not comments: each Canvas student's comment (the short form of
    their feedback) by user id, for Canvas's submission-comments API or a bulk tool."""
    body = [[row.student, row.name, lms_comment(row, lang, zone=zone)] for row in rows if row.layout == "canvas"]
    return csv_bytes(["ID", "Student", "Comment"], body, "utf-8-sig")


def reports_jsonl(rows: list[Row], lang: Lang) -> bytes:
    """One line per student: the row, and the full report (hidden cases included: the instructor's view)."""
    lines = []
    for row in rows:
        record = row.model_dump(mode="json", exclude={"report"})
        record["reason"] = row.reason.get(lang)
        record["report"] = row.report.model_dump(mode="json") if row.report else None
        lines.append(json.dumps(record, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def gradescope_results(row: Row, lang: Lang) -> dict[str, Any]:
    """Gradescope's results.json for one student, from what the student may see (hidden cases as 'hidden N').

    Each test's max_score is its weight's share of the row's max points; the top-level score (which Gradescope
    takes over the tests' sum) is the row's points after any late penalty and the instructor's adjustment."""
    said = grade_notes(row, lang)
    if row.report is None:
        output = "; ".join([f"{row.verdict}: {scrubbed(row.reason.get(lang))}", *said])
        return {"score": row.points, "output": output, "tests": []}
    public = row.report.public(lang)
    weights = [case.weight for case in row.report.cases]
    total = sum(weights) or 1.0
    unit = row.max_points / total if row.max_points else 1.0
    tests = [
        {
            "name": case.name,
            "status": "passed" if case.outcome == Outcome.passed else "failed",
            "score": round(weight * unit, 4) if case.outcome == Outcome.passed and row.score > 0 else 0,
            "max_score": round(weight * unit, 4),
            "visibility": "visible",
            "output": scrubbed("\n".join(t for t in (case.message, case.hint) if t)),
        }
        for case, weight in zip(public.cases, weights)
    ]
    notes = [n for n in row.notes if n in (UNCHANGED_NOTE, NO_OPERATORS_NOTE)]
    return {
        "score": row.points if row.max_points else public.passed,
        "output": "; ".join([f"{public.verdict.value}: {scrubbed(public.message)}", *notes, *said]),
        "tests": tests,
        "execution_time": round(row.duration_s, 3),
    }


def junit_xml(rows: list[Row], problem_id: str) -> bytes:
    """One <testsuite> per student, one <testcase> per case (real names: this file is for instructors)."""
    suites = ET.Element("testsuites", name=f"problem {problem_id}", tests=str(sum(_count(r) for r in rows)))
    for row in rows:
        cases = row.report.cases if row.report else []
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=row.student,
            tests=str(_count(row)),
            failures=str(sum(c.outcome == Outcome.failed for c in cases)),
            errors=str(sum(c.outcome == Outcome.error for c in cases) + (not cases)),
            skipped=str(sum(c.outcome == Outcome.skipped for c in cases)),
            time=f"{row.duration_s:.3f}",
        )
        ET.SubElement(ET.SubElement(suite, "properties"), "property", name="verdict", value=row.verdict)
        if not cases:  # rejected, or nothing collected: one case says why
            case = ET.SubElement(suite, "testcase", classname=row.student, name="submission", time="0")
            message = row.reason.en if row.verdict == REJECTED else (row.report.message.en if row.report else "")
            ET.SubElement(case, "error", message=_xml(f"{row.verdict}: {message}"))
        for result in cases:
            case = ET.SubElement(
                suite, "testcase", classname=row.student, name=_xml(result.name), time=f"{result.duration_s:.3f}"
            )
            status = JUNIT_STATUS.get(result.outcome)
            if status:
                node = ET.SubElement(case, status, message=_xml(result.message.en or result.hint.en))
                node.text = _xml(result.detail[-4000:])
    return bytes(ET.tostring(suites, encoding="utf-8", xml_declaration=True))


def _count(row: Row) -> int:
    return len(row.report.cases) if row.report and row.report.cases else 1


_XML_BAD = {c: None for c in range(32) if c not in (9, 10, 13)}


def _xml(text: str) -> str:
    """Text XML 1.0 can hold: learner-printed control characters removed (ElementTree would write them raw)."""
    return valid(text).translate(_XML_BAD)
