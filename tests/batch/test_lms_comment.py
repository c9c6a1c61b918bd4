"""What reaches the LMS tells each student why: the short form of their feedback file in Moodle's comments and in
canvas-comments.csv (the verdict and points, the reason for a rejection or a zero, each failing check)."""

from __future__ import annotations

import csv
import io

from judge.batch.exports import canvas_comments_csv, moodle_csv
from judge.batch.feedback import lms_comment
from judge.batch.rows import UNCHANGED_NOTE, Row
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, Verdict


def _report(cases, verdict=Verdict.wrong_answer):
    passed = sum(c.outcome == Outcome.passed for c in cases)
    return Report(problem="101", verdict=verdict, score=0, passed=passed, total=len(cases), cases=cases,
                  message=Text(zh="有测试没通过", en="Some tests failed"))  # fmt: skip


def test_a_partial_score_names_each_failing_check_public_by_message_hidden_by_hint():
    cases = [
        CaseResult(name="test_counts", outcome=Outcome.passed),
        CaseResult(name="test_keywords", outcome=Outcome.failed, message=Text.same("rounding_mode was not counted")),
        CaseResult(
            name="test_secret",
            outcome=Outcome.failed,
            hidden=True,
            message=Text.same("leak 3.0"),
            hint=Text(zh="反向", en="the backward's ops"),
        ),  # fmt: skip
    ]
    row = Row(student="1001", verdict="wrong_answer", score=0.36, points=3.6, max_points=10, report=_report(cases))
    comment = lms_comment(row, "en")
    assert comment.splitlines()[0].startswith("wrong answer") and "1/3 passed" in comment and "3.6 / 10" in comment
    assert "✗ test_keywords: rounding_mode was not counted" in comment
    assert "✗ hidden 1: the backward's ops" in comment and "leak" not in comment  # a hidden case: its hint only


def test_the_starter_and_a_rejected_file_say_why():
    starter = Row(student="1002", verdict="wrong_answer", notes=[UNCHANGED_NOTE],
                  report=_report([CaseResult(name="t", outcome=Outcome.failed)]))  # fmt: skip
    assert "The starter was not changed: score 0" in lms_comment(starter, "en")
    empty = Row(student="1003", verdict="rejected", reason=Text(zh="空文件", en="the file is empty"))
    assert lms_comment(empty, "en") == "rejected: the file is empty"
    assert lms_comment(empty, "zh") == "未判题: 空文件"


def test_moodle_and_canvas_carry_the_comment():
    row = Row(student="2001", verdict="rejected", layout="moodle", reason=Text.same("the file is empty"))
    sheet = list(csv.reader(io.StringIO(moodle_csv([row], "en").decode(), newline="")))
    assert sheet[1][sheet[0].index("Feedback comments")] == "rejected: the file is empty"
    canvas = Row(student="3001", verdict="rejected", layout="canvas", name="Zhang", reason=Text.same("binary file"))
    table = list(csv.reader(io.StringIO(canvas_comments_csv([canvas], "en").decode("utf-8-sig"), newline="")))
    assert table == [["ID", "Student", "Comment"], ["3001", "Zhang", "rejected: binary file"]]


def test_a_file_with_none_of_the_operators_is_told_so_not_that_the_starter_is_unchanged():
    from judge.batch.exercise import Exercise
    from judge.batch.rows import NO_OPERATORS_NOTE

    exercise = Exercise("101.py", "def add(a, b):\n    raise NotImplementedError\n", frozenset({"add"}))
    assert exercise.not_done("import torch.nn.functionl\n") == "none"
    assert exercise.not_done("def add(a, b):\n    '''doc'''\n    raise NotImplementedError\n") == "starter"
    assert exercise.not_done("def add(a, b):\n    return a + b\n") is None
    row = Row(
        student="1005", verdict="compile_error", notes=[NO_OPERATORS_NOTE], report=_report([], Verdict.compile_error)
    )
    comment = lms_comment(row, "en")
    assert "defines none of the exercise's operators" in comment and "starter was not changed" not in comment


HOST = "/opt/venv/lib/python3.11/site-packages/torch/library.py"


def test_no_path_of_the_grading_machine_reaches_a_student():
    """torch's own messages name its install path: the student reads where in the package, never the host's."""
    import json

    from judge.batch.exports import gradescope_results
    from judge.batch.feedback import feedback_markdown, scrubbed

    said = Text.same(f"RuntimeError: ex105::scaled_dot already has a kernel registered from python at {HOST}:806")
    cases = [CaseResult(name="test_register", outcome=Outcome.failed, message=said)]
    row = Row(student="1001", verdict="wrong_answer", score=0.0, max_points=10, report=_report(cases))
    row.report.message = Text.same(f"your file failed while importing: {HOST}:12 and /tmp/judge-x1/work/105.py:3")
    texts = {
        "feedback": feedback_markdown(row, "105", "en"),
        "comment": lms_comment(row, "en"),
        "results": json.dumps(gradescope_results(row, "en")),
    }
    for where, text in texts.items():
        assert "/opt/" not in text and "/tmp/" not in text and "python3.11" not in text, where
        assert "<site-packages>/torch/library.py:806" in text, where
    assert "…/105.py:3" in texts["feedback"]
    assert scrubbed("see https://pytorch.org/docs/stable/library.html and a / b, 1/2") == (
        "see https://pytorch.org/docs/stable/library.html and a / b, 1/2"
    )  # a URL and arithmetic are not paths
    rejected = Row(student="1002", verdict="rejected", reason=Text.same(f"cannot read {HOST}"))
    assert HOST not in lms_comment(rejected, "en") and HOST not in feedback_markdown(rejected, "105", "en")
