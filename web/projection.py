"""Stored (bilingual) reports and events -> what one learner reads, in one language."""

from __future__ import annotations

from typing import Any

from judge.queue.store import StoredEvent, Submission
from judge.report.i18n import Lang
from judge.report.models import Report
from web.schemas import HistoryEntry, SubmissionOut


def _listed(sub: Submission) -> dict[str, Any]:
    """What every view of a submission shows of it."""
    return {
        "id": sub.id,
        "problem_id": sub.problem_id,
        "mode": sub.mode,
        "status": sub.status,
        "created_at": sub.created_at,
        "finished_at": sub.finished_at,
    }


def submission_out(sub: Submission, lang: Lang) -> SubmissionOut:
    report = Report.model_validate_json(sub.report) if sub.report else None
    return SubmissionOut(
        **_listed(sub),
        code=sub.code,
        report=report.public(lang) if report else None,
        error_line=report.error_line if report else None,
    )


def history_entry(sub: Submission) -> HistoryEntry:
    report = Report.model_validate_json(sub.report) if sub.report else None
    return HistoryEntry(
        **_listed(sub),
        verdict=report.verdict.value if report else None,
        passed=report.passed if report else None,
        total=report.total if report else None,
        tiers=dict(report.tiers) if report else {},
    )


def event_data(event: StoredEvent, lang: Lang, sub: Submission | None) -> dict[str, Any]:
    """One stored event as the stream sends it; `done` carries the final report in the asked language."""
    if event.kind == "case":
        data = dict(event.payload)
        data["message"] = (data.get("message") or {}).get(lang, "")
        data["hint"] = (data.get("hint") or {}).get(lang, "")
        return data
    if event.kind == "done" and sub is not None:
        return submission_out(sub, lang).model_dump(mode="json", exclude={"code"})
    return event.payload
