"""--points, --deadline and --late-penalty turned into points, and the options a later run (--only) reuses."""

from __future__ import annotations

from datetime import UTC, datetime

from judge.batch.command import grade_options
from judge.batch.policy import GradeOptions
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
