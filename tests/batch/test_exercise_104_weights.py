"""Scores that measure the lesson, on the real exercise 104: the untouched starter scores 0, and a fake that misses
the chapter's lesson (nonzero in the fake, or new_dynamic_size with too small a max) loses at least 40%."""

from __future__ import annotations

import pytest

from judge.batch.grade import grade_class
from judge.batch.policy import GradeOptions
from judge.settings import Settings
from tests.batch.conftest import read_grades, read_reports, write_tree


@pytest.mark.slow
def test_a_class_of_exercise_104_scores_the_lesson(judge, tmp_path):
    problem = judge.problem("104")
    wrong = problem.root / "solutions" / "wrong"
    files = {
        "starter/104.py": problem.starter_path.read_text(encoding="utf-8"),
        "nonzero/104.py": (wrong / "fake_calls_nonzero.py").read_text(encoding="utf-8"),
        "max1000/104.py": (wrong / "fake_max_1000.py").read_text(encoding="utf-8"),
    }
    out = tmp_path / "out"
    status = grade_class(
        "104",
        write_tree(tmp_path / "class", files),
        out,
        Settings(),
        jobs=2,
        judge=judge,
        stream=open(tmp_path / "log", "w"),
        options=GradeOptions(points=20),
    )
    assert status == 0
    rows = read_grades(out)
    assert rows["starter"]["score"] == "0.0000" and rows["starter"]["points"] == "0.00"
    assert "starter not changed" in rows["starter"]["note"]
    for student in ("nonzero", "max1000"):
        assert rows[student]["verdict"] == "wrong_answer"
        assert float(rows[student]["score"]) <= 0.6, (student, rows[student]["score"])
        report = read_reports(out)[student]["report"]
        passed = sum(c["outcome"] == "passed" for c in report["cases"])
        assert passed / len(report["cases"]) > 0.6  # unweighted, the mistake would have cost far less
        assert any(c["weight"] > 1 for c in report["cases"])
