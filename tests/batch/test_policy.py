"""--points, --deadline and --late-penalty turned into points, and the options a later run (--only) reuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from judge.batch.command import grade_options
from judge.batch.policy import GradeOptions, apply
from judge.batch.rows import Row
from judge.cli.subcommands import build_parser

DEADLINE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
FIRST = GradeOptions(points=10, deadline=DEADLINE, late_penalty=10, lms=["moodle"], lms_column="HW 4", lang="en")


def _given(*argv: str) -> GradeOptions:
    return grade_options(build_parser().parse_args(["grade", "900", "c", "--out", "o", *argv]))


def test_an_option_given_again_wins_even_at_its_default():
    """Mutation: values equal to the default dropped (--late-penalty 0 on a regrade kept the first run's 10)."""
    options = _given("--only", "2002", "--late-penalty", "0").filled_from(FIRST)
    assert options.late_penalty == 0
    assert (options.points, options.deadline, options.lms, options.lms_column) == (10, DEADLINE, ["moodle"], "HW 4")
    assert _given("--points", "100").filled_from(FIRST).points == 100


def test_what_a_run_leaves_unsaid_comes_from_the_earlier_run():
    assert _given("--only", "2002").filled_from(FIRST) == FIRST
    assert _given("--late-penalty", "0").filled_from(None).late_penalty == 0


def _row(submitted: datetime | None, layout: str = "canvas", score: float = 1.0, marked: bool = False) -> Row:
    return Row(student="s", verdict="accepted", score=score, layout=layout, submitted=submitted, late_marker=marked)


@pytest.mark.parametrize(
    ("after", "days", "points"),
    [
        (timedelta(0), 0, 10.0),  # at the deadline: on time
        (-timedelta(hours=5), 0, 10.0),
        (timedelta(seconds=1), 1, 6.0),  # any part of a day counts as a day
        (timedelta(days=1), 1, 6.0),
        (timedelta(days=1, seconds=1), 2, 2.0),
        (timedelta(days=2, hours=1), 3, 0.0),  # 120% off: floored at 0 points, never below
        (timedelta(days=9), 9, 0.0),
    ],
)
def test_late_days_round_up_and_the_penalty_stops_at_zero_points(after, days, points):
    row = _row(DEADLINE + after)
    apply([row], GradeOptions(points=10, deadline=DEADLINE, late_penalty=40))
    assert (row.late, row.days_late, row.points, row.max_points) == (days > 0, days, points, 10.0)


def test_the_lms_marker_alone_is_one_day_and_a_plain_files_time_is_not_a_hand_in_time():
    marked, plain = _row(None, marked=True), _row(DEADLINE + timedelta(days=3), layout="plain", score=0.5)
    apply([marked, plain], GradeOptions(points=10, deadline=None, late_penalty=25))
    assert (marked.late, marked.days_late, marked.points) == (True, 1, 7.5)
    apply([plain], GradeOptions(points=10, deadline=DEADLINE, late_penalty=25))
    assert (plain.late, plain.days_late, plain.points) == (False, 0, 5.0)
