"""One row per student: the verdict (or why nothing was judged) and the full report behind it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from judge.i18n import Text
from judge.models import Report

# A submission that never ran (empty, binary, not UTF-8, too large, no file chosen in the student's folder)
# gets this status instead of a verdict: nothing was judged, so no verdict of the judge applies. Score 0.
REJECTED = "rejected"
CSV_COLUMNS = [
    "student",
    "verdict",
    "score",
    "passed",
    "total",
    "duration_s",
    "sha256",
    "flags",
    "similar_to",
    "source",
    "note",
]


class Row(BaseModel):
    student: str
    verdict: str = Field(description="A Verdict value, or 'rejected' when the submission was not judged.")
    score: float = 0.0
    passed: int = 0
    total: int = 0
    duration_s: float = 0.0
    sha256: str = ""
    flags: list[str] = Field(default_factory=list)
    similar_to: list[str] = Field(default_factory=list)
    source: str = Field("", description="The file judged, relative to SUBMISSIONS.")
    reason: Text = Field(default_factory=Text, description="Why a rejected submission was not judged.")
    notes: list[str] = Field(default_factory=list, description="Duplicate ids, retries, cache hits.")
    cached: bool = False
    report: Report | None = None

    @classmethod
    def judged(cls, student: str, source: str, sha256: str, report: Report, **extra) -> Row:
        return cls(
            student=student,
            source=source,
            sha256=sha256,
            report=report,
            verdict=report.verdict.value,
            score=report.score,
            passed=report.passed,
            total=report.total,
            duration_s=report.duration_s,
            flags=list(report.flags),
            **extra,
        )

    @classmethod
    def rejected(cls, student: str, source: str, sha256: str, reason: Text, **extra) -> Row:
        return cls(student=student, source=source, sha256=sha256, verdict=REJECTED, reason=reason, **extra)

    def csv_record(self, lang: str) -> dict[str, str]:
        note = "; ".join([*([self.reason.get(lang)] if self.reason else []), *self.notes])
        return {
            "student": self.student,
            "verdict": self.verdict,
            "score": f"{self.score:.4f}",
            "passed": str(self.passed),
            "total": str(self.total),
            "duration_s": f"{self.duration_s:.3f}",
            "sha256": self.sha256,
            "flags": " ".join(self.flags),
            "similar_to": " ".join(self.similar_to),
            "source": self.source,
            "note": note,
        }
