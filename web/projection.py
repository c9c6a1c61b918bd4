"""Stored (bilingual) reports and events -> what one learner reads, in one language."""

from __future__ import annotations

import re

from judge.i18n import Lang
from judge.models import Report, Verdict
from web.schemas import HistoryEntry, SubmissionOut
from web.store import StoredEvent, Submission

# The judge's compile-error message ends with "(100.py line 42)" in English.
LINE = re.compile(r"\bline (\d+)\b")


def error_line(report: Report) -> int | None:
    if report.verdict != Verdict.compile_error:
        return None
    match = LINE.search(report.message.en)
    return int(match[1]) if match else None


def submission_out(sub: Submission, lang: Lang) -> SubmissionOut:
    report = Report.model_validate_json(sub.report) if sub.report else None
    return SubmissionOut(
        id=sub.id,
        problem_id=sub.problem_id,
        mode=sub.mode,
        status=sub.status,
        created_at=sub.created_at,
        finished_at=sub.finished_at,
        code=sub.code,
        report=report.public(lang) if report else None,
        error_line=error_line(report) if report else None,
    )


def history_entry(sub: Submission) -> HistoryEntry:
    report = Report.model_validate_json(sub.report) if sub.report else None
    return HistoryEntry(
        id=sub.id,
        problem_id=sub.problem_id,
        mode=sub.mode,
        status=sub.status,
        created_at=sub.created_at,
        finished_at=sub.finished_at,
        verdict=report.verdict.value if report else None,
        passed=report.passed if report else None,
        total=report.total if report else None,
    )


def event_data(event: StoredEvent, lang: Lang, sub: Submission | None) -> dict:
    """One stored event as the stream sends it; `done` carries the final report in the asked language."""
    if event.kind == "case":
        data = dict(event.payload)
        data["message"] = (data.get("message") or {}).get(lang, "")
        data["hint"] = (data.get("hint") or {}).get(lang, "")
        return data
    if event.kind == "done" and sub is not None:
        return submission_out(sub, lang).model_dump(mode="json", exclude={"code"})
    return event.payload
