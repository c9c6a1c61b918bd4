"""End to end on a real exercise: a small class of exercise 100 gets exactly the verdicts its files declare."""

from __future__ import annotations

import pytest

from judge.batch.grade import grade_class
from judge.problem.folders import EXPECT
from judge.settings import Settings
from tests.batch.conftest import read_grades, read_reports, write_tree

PICKED = [
    "reference.py",
    "valid/functional_rms_norm_forward.py",
    "wrong/rms_ignores_eps.py",
    "wrong/syntax_error.py",
    "wrong/kv_mutates_args_empty.py",
]


@pytest.mark.slow
def test_a_class_of_exercise_100(judge, tmp_path):
    solutions = judge.problem("100").root / "solutions"
    files, expected = {}, {}
    for rel in PICKED:
        text = (solutions / rel).read_text(encoding="utf-8")
        student = rel.removesuffix(".py").replace("/", "_")
        files[f"{student}/100.py"] = text  # a folder per student, as an LMS exports them
        first = EXPECT.match(text.splitlines()[0])
        expected[student] = first["verdict"] if first else "accepted"
    out = tmp_path / "out"
    status = grade_class(
        "100",
        write_tree(tmp_path / "class", files),
        out,
        Settings(),
        jobs=2,
        judge=judge,
        stream=open(tmp_path / "log", "w"),
    )
    assert status == 0
    rows = read_grades(out)
    assert {s: r["verdict"] for s, r in rows.items()} == expected
    reference = read_reports(out)["reference"]["report"]
    assert reference["total"] > 10 and any(c["hidden"] for c in reference["cases"])
    assert reference["problem_digest"] and reference["versions"]["torch"]
    assert (out / "class-report.html").stat().st_size > 5000
