"""One row per student: the verdict (or why nothing was judged) and the full report behind it."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from pydantic import BaseModel, Field

from judge.batch.checks import column
from judge.batch.zones import shown
from judge.report.i18n import Lang, Text
from judge.report.models import Report

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
# Added after the columns above (a contract other tools read: their names, order and encoding stay).
LMS_COLUMNS = ["name", "points", "max_points", "late", "attempts", "tiers"]
# Then when it was handed in and the deadline it was held to (both with their offset, in the course's zone), the
# points the late penalty took, the instructor's adjustment and why; then one points column per check group
# (judge.batch.checks), whose sum is the score before penalty.
GRADE_COLUMNS = ["submitted", "deadline", "late_penalty", "adjustment", "adjustment_reason"]
ALL_COLUMNS = CSV_COLUMNS + LMS_COLUMNS + GRADE_COLUMNS
UNCHANGED_NOTE = "starter not changed"
NO_OPERATORS_NOTE = "none of the exercise's operators defined"


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
    told: list[Text] = Field(
        default_factory=list, description="What the student is told of their file: members left out, notebook lines."
    )
    cached: bool = False
    name: str = Field("", description="The student's name, where the LMS's layout gives one.")
    layout: str = "plain"
    submitted: datetime | None = None
    submitted_from: str = Field("", description="Where `submitted` came from: lms, file, submitted-at, worksheet.")
    late_marker: bool = Field(False, description="The LMS marked it late (Canvas's _LATE_).")
    late: bool = False
    days_late: int = 0
    attempts: list[str] = Field(default_factory=list, description="The student's other attempts, not judged.")
    points: float = Field(0.0, description="After the late penalty and the instructor's adjustment, in [0, max].")
    max_points: float = 0.0
    deadline: datetime | None = Field(None, description="The deadline the student was held to (theirs, if extended).")
    extension: bool = Field(False, description="The deadline is the student's own (--extensions).")
    penalty: float = Field(0.0, description="Points the late penalty took off.")
    adjustment: float = Field(0.0, description="Points the instructor added (negative: took off), after the penalty.")
    adjustment_reason: str = ""
    checks: dict[str, float] = Field(default_factory=dict, description="Each check group's points, before penalty.")
    report: Report | None = None

    @property
    def tiers(self) -> str:
        """The tiers that ran, joined by '+' ('cpu', 'cpu+gpu'); '' when nothing was judged."""
        if self.report is None:
            return ""
        return "+".join(tier for tier, state in self.report.tiers.items() if state == "ran")

    @property
    def pending_tiers(self) -> list[str]:
        """Tiers with no runner where this was judged: still to be judged (the GPU tier on a CPU host)."""
        return [t for t, state in self.report.tiers.items() if state != "ran"] if self.report else []

    @classmethod
    def judged(cls, student: str, source: str, sha256: str, report: Report, **extra: Any) -> Row:
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
    def rejected(cls, student: str, source: str, sha256: str, reason: Text, **extra: Any) -> Row:
        return cls(student=student, source=source, sha256=sha256, verdict=REJECTED, reason=reason, **extra)

    def csv_record(self, lang: Lang, zone: tzinfo | None = None) -> dict[str, str]:
        """grades.csv's cells (ALL_COLUMNS, then `points:<group>` for each check group); times shown in `zone`."""
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
            "name": self.name,
            "points": f"{self.points:.2f}",
            "max_points": f"{self.max_points:g}",
            "late": f"{self.days_late}d" if self.late and self.days_late else ("yes" if self.late else ""),
            "attempts": " ".join(self.attempts),
            "tiers": self.tiers,
            "submitted": shown(self.submitted, zone),
            "deadline": shown(self.deadline, zone) + (" (extension)" if self.extension else ""),
            "late_penalty": f"{self.penalty:.2f}" if self.penalty else "",
            "adjustment": f"{self.adjustment:+g}" if self.adjustment else "",
            "adjustment_reason": self.adjustment_reason,
            **{column(name): f"{points:.2f}" for name, points in self.checks.items()},
        }
