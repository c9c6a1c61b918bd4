"""How scores become an LMS's points: --points, --deadline, --late-penalty; the options a regrade reuses."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field

from judge.batch.rows import Row

DEFAULT_POINTS = 100.0
DAY = timedelta(days=1)


class GradeOptions(BaseModel):
    """The options of a `judge grade` run that shape its outputs; saved in DIR so that --only reuses them."""

    points: float | None = Field(None, gt=0, description="Scale scores to this many points (default 100).")
    deadline: datetime | None = Field(None, description="Submissions after it are late (naive times read as UTC).")
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

    @property
    def max_points(self) -> float:
        return self.points or DEFAULT_POINTS

    def filled_from(self, earlier: GradeOptions | None) -> GradeOptions:
        """These options, with what this run did not say taken from an earlier run's.

        What this run gave explicitly wins, even where it equals the default (--late-penalty 0 after a run with
        --late-penalty 10): only the fields never set (the command line passes none it was not given) are filled."""
        if earlier is None:
            return self
        given = self.model_dump(exclude_unset=True)
        return GradeOptions.model_validate({**earlier.model_dump(), **given})


def parse_deadline(text: str) -> datetime:
    """An ISO 8601 time (2026-03-01T23:59, 2026-03-01 23:59+08:00, 2026-03-01); without a zone it is UTC."""
    when = datetime.fromisoformat(text.strip())
    if len(text.strip()) == 10:  # a date alone: the end of that day
        when = when + DAY - timedelta(seconds=1)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def apply(rows: list[Row], options: GradeOptions) -> None:
    """Set each row's late flag, days late, points and max points from its score and the options.

    Only an LMS's entries are timed against the deadline, by a time that can be trusted: the LMS's names or metadata,
    --submitted-at or --worksheet, and the download's file times only with --late-from-mtime (judge.batch.lateness);
    a plain alice.py's file time says when it was copied, not when it was handed in."""
    for row in rows:
        marked = row.late_marker
        days = 0
        trusted = row.submitted_from != "file" or options.late_from_mtime  # a file's time says when it was copied
        if options.deadline is not None and row.submitted is not None and row.layout != "plain" and trusted:
            over = row.submitted - _aware(options.deadline)
            days = math.ceil(over / DAY) if over > timedelta(0) else 0
        if marked and days == 0:
            days = 1  # the LMS says late and no --deadline says by how much: one day
        row.late, row.days_late = days > 0, days
        factor = max(0.0, 1 - options.late_penalty / 100 * days)
        row.max_points = options.max_points
        row.points = round(row.score * options.max_points * factor, 2)


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)
