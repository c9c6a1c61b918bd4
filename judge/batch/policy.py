"""How scores become an LMS's points: --points, --deadline (or a student's extension), --late-penalty, then the
instructor's --adjustments; the options a regrade reuses."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.batch.checks import groups
from judge.batch.overrides import Adjustment
from judge.batch.rows import Row
from judge.batch.zones import in_zone, parse_moment, zone_of

DEFAULT_POINTS = 100.0
DAY = timedelta(days=1)


class GradeOptions(BaseModel):
    """The options of a `judge grade` run that shape its outputs; saved in DIR so that --only reuses them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    points: float | None = Field(None, gt=0, description="Scale scores to this many points (default 100).")
    deadline: datetime | None = Field(None, description="Submissions after it are late (zone-less: in `timezone`).")
    late_penalty: float = Field(0.0, ge=0, le=100, description="Percent of the points taken off per day late.")
    lms: list[str] = Field(default_factory=list, description="LMS exports to write: canvas, moodle.")
    lms_column: str | None = Field(None, description="The assignment's column in canvas.csv (default: the title).")
    late_from_mtime: bool = Field(False, description="Time submissions that carry no other time by their files.")
    submitted_at: dict[str, datetime] = Field(
        default_factory=dict, description="Times from --submitted-at or --worksheet, by student id (kept for --only)."
    )
    submitted_source: str = Field("", description="Where submitted_at came from: submitted-at or worksheet.")
    attempt: Literal["last", "first", "best"] = Field(
        "last", description="Which of a student's attempts is graded (Canvas's re-uploads, Gradescope's resubmissions)."
    )
    lang: str | None = None
    course_lang: str | None = Field(None, description="The course's language, read from an LMS worksheet's header.")
    timezone: str | None = Field(
        None, description="The course's zone (IANA, or UTC+08:00): zone-less times are read in it, all are shown in it."
    )
    extensions: dict[str, datetime] = Field(default_factory=dict, description="Students' own deadlines (--extensions).")
    adjustments: dict[str, Adjustment] = Field(
        default_factory=dict, description="Points the instructor adds after the late penalty, and why (--adjustments)."
    )
    gradebook_names: dict[str, list[str]] = Field(
        default_factory=dict, description="Canvas user id -> Student, SIS User ID, SIS Login ID, Section (--gradebook)"
    )
    # This run's own: not saved (the times are matched into submitted_at; the notes are said once).
    times_file: Any = Field(None, exclude=True, description="A times file read, to match against the download.")
    notes: list[str] = Field(default_factory=list, exclude=True, description="What the run says once, as it starts.")

    @property
    def max_points(self) -> float:
        return self.points or DEFAULT_POINTS

    @property
    def zone(self) -> tzinfo:
        return zone_of(self.timezone) if self.timezone else UTC

    def deadline_of(self, student: str) -> datetime | None:
        """The student's own deadline (an extension), else the course's; zone-less ones read in the course's zone."""
        when = self.extensions.get(student, self.deadline)
        return in_zone(when, self.zone) if when is not None else None

    def filled_from(self, earlier: GradeOptions | None) -> GradeOptions:
        """These options, with what this run did not say taken from an earlier run's.

        What this run gave explicitly wins, even where it equals the default (--late-penalty 0 after a run with
        --late-penalty 10): only the fields never set (the command line passes none it was not given) are filled."""
        if earlier is None:
            return self
        given = self.model_dump(exclude_unset=True)
        filled = GradeOptions.model_validate({**earlier.model_dump(), **given})
        filled.times_file, filled.notes = self.times_file, self.notes
        return filled


def parse_deadline(text: str, zone: tzinfo = UTC) -> datetime:
    """An ISO 8601 time (2026-03-01T23:59, 2026-03-01 23:59+08:00, 2026-03-01: the end of that day); a time without a
    zone is read in `zone`."""
    return in_zone(parse_moment(text), zone)


def apply(rows: list[Row], options: GradeOptions) -> None:
    """Set each row's deadline, days late, penalty, adjustment, per-check points and points from its score and the
    options.

    Only an LMS's entries are timed against the deadline, by a time that can be trusted: the LMS's names or metadata,
    --submitted-at or --worksheet, and the download's file times only with --late-from-mtime (judge.batch.lateness);
    a plain alice.py's file time says when it was copied, not when it was handed in. The instructor's adjustment is
    added after the late penalty; the points stay within [0, the assignment's points]."""
    for row in rows:
        deadline = options.deadline_of(row.student)
        row.deadline, row.extension = deadline, row.student in options.extensions
        days = 0
        trusted = row.submitted_from != "file" or options.late_from_mtime  # a file's time says when it was copied
        timed = deadline is not None and row.submitted is not None and row.layout != "plain" and trusted
        if timed and deadline is not None and row.submitted is not None:
            over = in_zone(row.submitted, options.zone) - deadline
            days = math.ceil(over / DAY) if over > timedelta(0) else 0
        elif row.late_marker and not row.extension:
            days = 1  # the LMS says late and no time against a --deadline says by how much: one day
        row.late, row.days_late = days > 0, days
        factor = max(0.0, 1 - options.late_penalty / 100 * days)
        row.max_points = options.max_points
        before = round(row.score * options.max_points, 2)
        late_points = round(row.score * options.max_points * factor, 2)
        row.penalty = round(before - late_points, 2)
        adjustment = options.adjustments.get(row.student)
        row.adjustment = adjustment.points if adjustment else 0.0
        row.adjustment_reason = adjustment.reason if adjustment else ""
        row.points = round(min(options.max_points, max(0.0, late_points + row.adjustment)), 2)
        row.checks = {g.name: g.points for g in groups(row.report, options.max_points, row.score)}
