"""Promises of batch grading that only an outside view would break silently: each test here was shown to fail on
the mutation it names (applied by hand, then reverted)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from judge.batch.cache import ReportCache
from judge.batch.exports import junit_xml
from judge.batch.outputs import write_outputs
from judge.batch.policy import GradeOptions, apply
from judge.batch.rows import Row
from judge.problem.folders import ProblemSet
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, Verdict
from tests.batch.conftest import FIXTURE, REFERENCE

VERSIONS = {"judge": "1", "torch": "2.13.0", "python": "3.11"}


def _report(problem: str = "100") -> Report:
    return Report(problem=problem, verdict=Verdict.accepted, score=1.0, passed=1, total=1)


def test_a_cached_report_is_not_reused_once_the_problem_changed(tmp_path: Path):
    """Mutation: the cache key ignores the problem digest (a fixed test would keep yesterday's verdicts)."""
    before = ReportCache(tmp_path, "digest-before", VERSIONS)
    before.put("sha-of-the-file", _report())
    assert before.get("sha-of-the-file") is not None  # the same problem: the judgement is reused
    after = ReportCache(tmp_path, "digest-after", VERSIONS)
    assert after.get("sha-of-the-file") is None  # its tests changed: judged again
    assert after.key("sha-of-the-file") != before.key("sha-of-the-file")


def test_a_cached_report_is_not_reused_under_another_judge_or_torch(tmp_path: Path):
    ReportCache(tmp_path, "digest", VERSIONS).put("sha", _report())
    assert ReportCache(tmp_path, "digest", {**VERSIONS, "torch": "2.14.0"}).get("sha") is None
    assert ReportCache(tmp_path, "digest", {**VERSIONS, "judge": "2"}).get("sha") is None


def test_a_rejected_submission_scores_nothing_anywhere():
    """Mutation: a rejected row (not judged: too large, binary) given a score above 0."""
    row = Row.rejected("alice", "alice.py", "sha", Text.same("not a text file"))
    apply([row], GradeOptions(points=10))
    assert (row.score, row.points, row.max_points) == (0.0, 0.0, 10.0)
    record = row.csv_record("en")
    assert record["verdict"] == "rejected" and float(record["score"]) == 0.0


def test_junit_suite_counts_agree_with_its_cases():
    """Mutation: a wrong failures= count (a CI reads the suite's counts, not the <failure> elements)."""
    outcomes = ["passed", "failed", "failed", "error", "skipped"]
    cases = [CaseResult(name=f"test_{i}", outcome=Outcome(o)) for i, o in enumerate(outcomes)]
    report = Report(problem="100", verdict=Verdict.runtime_error, score=0.2, passed=1, total=5, cases=cases)
    suite = ET.fromstring(junit_xml([Row(student="alice", verdict="runtime_error", report=report)], "100"))[0]
    counts = {k: int(suite.get(k, "-1")) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": 5, "failures": 2, "errors": 1, "skipped": 1}
    elements = {tag: len(suite.findall(f"testcase/{tag}")) for tag in ("failure", "error", "skipped")}
    assert elements == {"failure": 2, "error": 1, "skipped": 1}


def test_grades_csv_is_replaced_whole_never_rewritten_in_place(tmp_path: Path):
    """Mutation: grades.csv written in place (a reader, or a run stopped halfway, would see a torn file).

    A file replaced by rename is a new inode: whoever had the old one open still reads the old grades whole."""
    out = tmp_path / "out"
    out.mkdir()
    old = out / "grades.csv"
    old.write_bytes(b"student,score\nalice,0.1\n")
    inode = old.stat().st_ino
    report = Report(problem="900", verdict=Verdict.accepted, score=1.0, passed=1, total=1)
    rows = [Row(student="alice", verdict="accepted", score=1.0, passed=1, total=1, report=report)]
    with old.open("rb") as held:
        write_outputs(out, rows, {"alice": REFERENCE}, ProblemSet(FIXTURE.parent).get("900"), "en")
        assert held.read() == b"student,score\nalice,0.1\n"
    assert (out / "grades.csv").stat().st_ino != inode
    assert b"alice" in (out / "grades.csv").read_bytes()
