"""`judge grade` on a class of the fixture problem: every input shape, every output parsed back, the cache."""

from __future__ import annotations

import csv
import hashlib
import json
import xml.etree.ElementTree as ET

import pytest

from judge.batch.grade import grade_class
from judge.batch.rows import CSV_COLUMNS
from tests.batch.conftest import REFERENCE, WRONG, grades_header, read_grades, read_reports, write_tree, write_zip

RENAMED = REFERENCE.replace("a + b", "x + y").replace("add(a, b)", "add(x, y)")
CLASS = {
    "alice.py": REFERENCE,
    "bob.py": WRONG,
    "carol.py": REFERENCE,
    "dave/900.py": RENAMED,
    "empty.py": b"",
    "binary.py": b"\x7fELF\x00\x01\xff\xfe",
    "latin1.py": ("# café\n" + REFERENCE).encode("latin-1"),
    "huge.py": b"# padding\n" * 1_000_000,
    "syntax.py": "def add(a, b:\n    return a + b\n",
}


class CountingJudge:
    """The shared warm judge, counting the judgements asked of it."""

    def __init__(self, judge):
        self.inner, self.calls = judge, 0

    def grade(self, *args, **kwargs):
        self.calls += 1
        return self.inner.grade(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, fixture_judge, fixture_settings):
    """The class graded once (in English), shared by the tests that read its outputs."""
    root = tmp_path_factory.mktemp("grade")
    out, counting = root / "out", CountingJudge(fixture_judge)
    status = grade_class(
        "900",
        write_tree(root / "class", CLASS),
        out,
        fixture_settings,
        jobs=2,
        lang="en",
        judge=counting,
        stream=open(root / "progress.log", "w"),
    )
    return status, out, counting.calls


def test_every_student_has_a_row_with_the_right_verdict(graded):
    status, out, _ = graded
    assert status == 0
    rows = read_grades(out)
    verdicts = {s: r["verdict"] for s, r in rows.items()}
    assert verdicts == {
        "alice": "accepted",
        "bob": "wrong_answer",
        "carol": "accepted",
        "dave": "accepted",
        "empty": "rejected",
        "binary": "rejected",
        "latin1": "rejected",
        "huge": "rejected",
        "syntax": "compile_error",
    }
    assert rows["alice"]["score"] == "1.0000" and rows["alice"]["passed"] == rows["alice"]["total"] == "3"
    assert rows["bob"]["score"] == "0.0000" and rows["bob"]["total"] == "3"
    assert rows["dave"]["source"] == "dave/900.py"
    for student in ("empty", "binary", "latin1", "huge"):
        assert rows[student]["note"], f"{student}: a rejected row says why"
    assert "UTF-8" in rows["latin1"]["note"] and "bytes" in rows["huge"]["note"]


LMS = ["name", "points", "max_points", "late", "attempts", "tiers"]


def test_grades_csv_columns_and_hashes(graded):
    _, out, _ = graded
    header = grades_header(out)
    assert (
        header[:9] == ["student", "verdict", "score", "passed", "total", "duration_s", "sha256", "flags", "similar_to"]
        and header[: len(CSV_COLUMNS)] == CSV_COLUMNS  # the columns other tools read keep their places
        and header[len(CSV_COLUMNS) : len(CSV_COLUMNS) + 6] == LMS
    )
    # then the hand-in time, the deadline, the penalty, the instructor's adjustment; then a column per check group
    assert header[len(CSV_COLUMNS) + 6 :] == [
        "submitted", "deadline", "late_penalty", "adjustment", "adjustment_reason", "points:add", "points:add_seeded"
    ]  # fmt: skip
    assert (out / "grades.csv").read_bytes()[:3] != b"\xef\xbb\xbf"  # UTF-8 as before, no byte-order mark
    rows = read_grades(out)
    assert rows["bob"]["sha256"] == hashlib.sha256(WRONG.encode()).hexdigest()
    assert float(rows["bob"]["duration_s"]) > 0


def test_identical_submissions_are_judged_once_and_named_similar(graded):
    _, out, calls = graded
    assert calls == 4  # alice = carol; bob, dave, syntax: the rejected ones never reach the judge
    rows = read_grades(out)
    assert "carol" in rows["alice"]["similar_to"].split() and "identical to carol" in rows["alice"]["note"]


def test_reports_jsonl_holds_full_reports_with_hidden_cases(graded):
    _, out, _ = graded
    reports = read_reports(out)
    assert set(reports) == set(read_grades(out))
    cases = reports["bob"]["report"]["cases"]
    hidden = [c for c in cases if c["hidden"]]
    assert [c["name"] for c in hidden] == ["test_add_seeded"]  # the instructor's view: real names
    assert hidden[0]["detail"]  # and what failed
    assert reports["empty"]["report"] is None and reports["empty"]["verdict"] == "rejected"


def test_junit_xml_parses_with_a_suite_per_student(graded):
    _, out, _ = graded
    suites = {s.get("name"): s for s in ET.parse(out / "junit.xml").getroot().iter("testsuite")}
    assert set(suites) == set(read_grades(out))
    bob = suites["bob"]
    assert len(bob.findall("testcase")) == 3 and len(bob.findall("testcase/failure")) == 3
    assert len(suites["alice"].findall("testcase/failure")) == 0
    assert suites["binary"].find("testcase/error") is not None


def test_gradescope_results_per_student(graded):
    _, out, _ = graded
    bob = json.loads((out / "gradescope" / "bob" / "results.json").read_text(encoding="utf-8"))
    assert bob["score"] == 0 and len(bob["tests"]) == 3
    for test in bob["tests"]:
        assert {"name", "status", "score", "max_score", "visibility", "output"} <= set(test)
        assert test["status"] == "failed"
    assert "hidden 1" in [t["name"] for t in bob["tests"]] and "test_add_seeded" not in json.dumps(bob)
    alice = json.loads((out / "gradescope" / "alice" / "results.json").read_text(encoding="utf-8"))
    assert alice["score"] == 100 and all(t["status"] == "passed" for t in alice["tests"])  # points, default 100
    assert sum(t["max_score"] for t in alice["tests"]) == pytest.approx(100, abs=0.01)


def test_feedback_is_the_public_view_in_the_chosen_language(graded):
    _, out, _ = graded
    bob = (out / "feedback" / "bob.md").read_text(encoding="utf-8")
    assert "hidden 1" in bob and "test_add_seeded" not in bob
    assert "Verdict" in bob and "wrong answer" in bob
    assert "test_add[small]" in bob  # public cases by name
    latin1 = (out / "feedback" / "latin1.md").read_text(encoding="utf-8")
    assert "Not judged" in latin1 and "UTF-8" in latin1


def test_similarity_csv_and_class_report_are_written(graded):
    _, out, _ = graded
    with open(out / "similarity.csv", newline="", encoding="utf-8") as handle:
        pairs = list(csv.DictReader(handle))
    assert {"alice", "carol"} in [{p["student_a"], p["student_b"]} for p in pairs]
    assert all(float(p["score"]) >= 0.8 for p in pairs)
    html = (out / "class-report.html").read_text(encoding="utf-8")
    assert "<svg" in html and "test_add_seeded" in html and "http://" not in html.replace("http://www.w3.org", "")


def test_unchanged_rerun_comes_from_the_cache_and_force_judges_again(graded, fixture_judge, fixture_settings, tmp_path):
    _, out, _ = graded
    before = read_grades(out)
    again = CountingJudge(fixture_judge)
    root = out.parent
    assert (
        grade_class(
            "900",
            root / "class",
            out,
            fixture_settings,
            jobs=2,
            lang="en",
            judge=again,
            stream=open(tmp_path / "log", "w"),
        )
        == 0
    )
    assert again.calls == 0
    assert read_grades(out) == before
    assert all(r["cached"] for r in read_reports(out).values() if r["report"])
    forced = CountingJudge(fixture_judge)
    assert (
        grade_class(
            "900",
            root / "class",
            out,
            fixture_settings,
            jobs=2,
            lang="en",
            judge=forced,
            force=True,
            stream=open(tmp_path / "log", "w"),
        )
        == 0
    )
    assert forced.calls == 4


def test_a_zip_of_student_folders(fixture_judge, fixture_settings, tmp_path):
    archive = write_zip(
        tmp_path / "export.zip",
        {"hw/alice/900.py": REFERENCE, "hw/bob/work.py": WRONG, "hw/carol/a.py": REFERENCE, "hw/carol/b.py": WRONG},
    )
    out = tmp_path / "out"
    assert (
        grade_class(
            "900", archive, out, fixture_settings, jobs=2, judge=fixture_judge, stream=open(tmp_path / "log", "w")
        )
        == 0
    )
    rows = read_grades(out)
    assert {s: r["verdict"] for s, r in rows.items()} == {
        "alice": "accepted",
        "bob": "wrong_answer",
        "carol": "rejected",
    }
    assert "several .py files" in rows["carol"]["note"]


def test_flags_reach_the_csv_and_the_class_report(fixture_judge, fixture_settings, tmp_path):
    tamper = "import torch\n\ntorch.equal = lambda *a, **k: True\n\n\ndef add(a, b):\n    return a - b\n"
    peek = REFERENCE + "\n\ndef _never():\n    import sys\n    return sys._getframe(1).f_globals\n"
    classroom = write_tree(tmp_path / "class", {"mallory.py": tamper, "peek.py": peek, "alice.py": REFERENCE})
    out = tmp_path / "out"
    assert (
        grade_class(
            "900", classroom, out, fixture_settings, jobs=2, judge=fixture_judge, stream=open(tmp_path / "log", "w")
        )
        == 0
    )
    rows = read_grades(out)
    assert rows["mallory"]["verdict"] == "runtime_error"
    assert {"tampering", "monkeypatch"} <= set(rows["mallory"]["flags"].split())
    assert rows["peek"]["verdict"] == "accepted" and rows["peek"]["flags"] == "frame-walking"  # flags never a verdict
    assert rows["alice"]["flags"] == ""
    html = (out / "class-report.html").read_text(encoding="utf-8")
    flagged = html[html.index('id="flagged"') : html.index('id="slowest"')]
    assert "mallory" in flagged and "peek" in flagged and "alice" not in flagged
