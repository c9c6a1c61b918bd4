"""canvas.csv's grade column matches the instructor's assignment: taken from --lms-column or from a Canvas gradebook
export (--gradebook), and, with neither, the run says how Canvas will match it."""

from __future__ import annotations

import pytest

from judge.batch.canvas_column import assignment_columns, column_from_gradebook, matching_note
from judge.errors import JudgeError

HEADER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Exercise 100: custom ops (4411),"
    "练习 101：算子计数器 (4412),Quiz 3 (4413),Current Points,Final Score\n"
)


def test_the_one_assignment_column_naming_the_exercise_is_taken(tmp_path):
    gradebook = tmp_path / "gradebook.csv"
    gradebook.write_text(HEADER + "Zhang San,1001,,,,8,7,9,24,80\n", encoding="utf-8")
    assert assignment_columns(gradebook) == [
        "Exercise 100: custom ops (4411)", "练习 101：算子计数器 (4412)", "Quiz 3 (4413)"
    ]  # fmt: skip
    assert (
        column_from_gradebook(gradebook, "100", ["自定义算子", "Custom operators"]) == "Exercise 100: custom ops (4411)"
    )
    assert column_from_gradebook(gradebook, "101", ["算子计数器", "Operator counter"]) == "练习 101：算子计数器 (4412)"


def test_none_or_several_columns_are_refused_with_the_candidates(tmp_path):
    gradebook = tmp_path / "gradebook.csv"
    gradebook.write_text(HEADER, encoding="utf-8")
    with pytest.raises(JudgeError) as none:
        column_from_gradebook(gradebook, "105", ["分发键", "Dispatch keys"])
    assert "no column names it" in none.value.message and "Quiz 3 (4413)" in none.value.message
    assert "--lms-column" in none.value.message
    twice = tmp_path / "twice.csv"
    twice.write_text("Student,ID,HW 100 (1),HW 100 again (2)\n", encoding="utf-8")
    with pytest.raises(JudgeError, match="several columns name it"):
        column_from_gradebook(twice, "100", [])


def test_without_either_the_note_says_how_canvas_will_match():
    note = matching_note("自定义算子")
    assert "exactly that name" in note and "--lms-column" in note and "--gradebook" in note
