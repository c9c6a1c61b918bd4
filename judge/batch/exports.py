"""The machine-readable outputs: grades.csv, reports.jsonl, JUnit XML and Gradescope results.json."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

from judge.batch.rows import CSV_COLUMNS, REJECTED, Row
from judge.i18n import Lang
from judge.models import Outcome
from judge.textsafe import valid

JUNIT_STATUS = {Outcome.failed: "failure", Outcome.error: "error", Outcome.skipped: "skipped"}


def grades_csv(rows: list[Row], lang: Lang) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.csv_record(lang))
    return out.getvalue().encode("utf-8")


def reports_jsonl(rows: list[Row], lang: Lang) -> bytes:
    """One line per student: the row, and the full report (hidden cases included: the instructor's view)."""
    lines = []
    for row in rows:
        record = row.model_dump(mode="json", exclude={"report"})
        record["reason"] = row.reason.get(lang)
        record["report"] = row.report.model_dump(mode="json") if row.report else None
        lines.append(json.dumps(record, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def gradescope_results(row: Row, lang: Lang) -> dict:
    """Gradescope's results.json for one student, from what the student may see (hidden cases as 'hidden N').

    Every case is worth one point; score is the number passed (Gradescope sums max_score into the total)."""
    if row.report is None:
        return {"score": 0, "output": f"{row.verdict}: {row.reason.get(lang)}", "tests": []}
    public = row.report.public(lang)
    tests = [
        {
            "name": case.name,
            "status": "passed" if case.outcome == Outcome.passed else "failed",
            "score": 1 if case.outcome == Outcome.passed else 0,
            "max_score": 1,
            "visibility": "visible",
            "output": "\n".join(t for t in (case.message, case.hint) if t),
        }
        for case in public.cases
    ]
    return {
        "score": public.passed,
        "output": f"{public.verdict.value}: {public.message}",
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
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def _count(row: Row) -> int:
    return len(row.report.cases) if row.report and row.report.cases else 1


_XML_BAD = {c: None for c in range(32) if c not in (9, 10, 13)}


def _xml(text: str) -> str:
    """Text XML 1.0 can hold: learner-printed control characters removed (ElementTree would write them raw)."""
    return valid(text).translate(_XML_BAD)
