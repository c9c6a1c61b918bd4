"""The whole path on a class downloaded from Canvas, Moodle, Gradescope and Blackboard: one row per student with the
LMS's id, points, late flag and attempts; canvas.csv, moodle.csv, grades.xlsx; --only regrades one student."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import threading
from datetime import UTC, datetime

import pytest

from judge.batch.grade import EXIT_OK, EXIT_USAGE, grade_class
from judge.batch.policy import GradeOptions, parse_deadline
from tests.batch.conftest import FIXTURE, REFERENCE, WRONG, read_grades, write_tree, zip_bytes

STARTER = (FIXTURE / "starter.py").read_text(encoding="utf-8")
BOM = b"\xef\xbb\xbf" + REFERENCE.encode()
GBK = ("# -*- coding: gbk -*-\n# 加法\n" + REFERENCE).encode("gbk")
HELPER = "def helper(x):\n    return x\n"
SYNTAX = "def add(a, b:\n    return a + b\n"
GS_METADATA = """\
submission_111:
  :submitters:
  - :name: Alice Smith
    :sid: '1001'
  :created_at: 2026-03-01 10:20:30.000000000 +00:00
submission_222:
  :submitters:
  - :name: Bob Jones
    :sid: '1002'
  :created_at: 2026-03-02 09:00:00.000000000 +00:00
submission_333:
  :submitters:
  - :name: Alice Smith
    :sid: '1001'
  :created_at: 2026-03-03 08:00:00.000000000 +00:00
"""


CLASSES: dict[str, dict[str, str | bytes]] = {
    "canvas": {
        "smithalice_1001_5001_900.py": BOM,
        "jonesbob_LATE_1002_5002_900.py": REFERENCE,
        "leechris_1003_5003_900.py": WRONG,
        "leechris_1003_5004_helper.py": HELPER,
        "wudana_1004_5005_hw.zip": zip_bytes({"hw/900.py": GBK}),
        "zhaoeve_1005_5006_900.py": STARTER,
        "manifest.csv": "user,file\n",
    },
    "moodle": {
        "张三_2001_assignsubmission_file_/900.py": REFERENCE,
        "Bob Jones_2002_assignsubmission_file_/900.py": WRONG,
        "Chris Lee_2003_assignsubmission_file_/work.zip": zip_bytes({"900.py": REFERENCE}),
        "Syntax Err_2005_assignsubmission_file_/900.py": SYNTAX,
    },
    "gradescope": {
        "submission_metadata.yml": GS_METADATA,
        "submission_111/900.py": WRONG,
        "submission_222/900.py": REFERENCE,
        "submission_333/900.py": REFERENCE,
    },
    "blackboard": {
        "Exercise 900_asmith_attempt_2026-03-01-10-20-30_900.py": WRONG,
        "Exercise 900_asmith_attempt_2026-03-01-10-20-30.txt": "Name: Alice Smith (asmith)\n",
        "Exercise 900_asmith_attempt_2026-03-02-08-00-00_900.py": REFERENCE,
        "Bob Jones_bjones_attempt_2026-03-05.py": REFERENCE,
    },
}
HANDED_IN = datetime(2026, 3, 1, 12, tzinfo=UTC).timestamp()
OPTIONS = dict(
    points=10, deadline=parse_deadline("2026-03-03T23:59:00+00:00"), late_penalty=10, lms=["canvas", "moodle"]
)


class MemoJudge:
    """The shared warm judge, judging each distinct source once across the layouts' runs (the batch's own cache
    is per output folder); counts the judgements it really asked for."""

    def __init__(self, judge):
        self.inner, self.memo, self.calls, self.lock = judge, {}, 0, threading.Lock()
        self.locks: dict[str, threading.Lock] = {}

    def grade(self, problem_id, source, **kwargs):
        with self.lock:  # two bytes-different files of one text (a BOM) may be judged at once
            lock = self.locks.setdefault(source, threading.Lock())
        with lock:
            if source not in self.memo:
                self.calls += 1
                self.memo[source] = self.inner.grade(problem_id, source, **kwargs)
        return self.memo[source].model_copy(deep=True)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.fixture(scope="module")
def classes(tmp_path_factory, fixture_judge, fixture_settings):
    """Each layout's class graded once (English feedback, 10 points, a deadline, 10% a day, both LMS exports)."""
    memo, out = MemoJudge(fixture_judge), {}
    root = tmp_path_factory.mktemp("lms")
    for layout, files in CLASSES.items():
        folder = write_tree(root / layout, files)
        for path in folder.rglob("*"):  # as the download unpacks: the files' times are when they were handed in
            os.utime(path, (HANDED_IN, HANDED_IN))
        status = grade_class(
            "900",
            folder,
            root / f"{layout}-out",
            fixture_settings,
            jobs=2,
            lang="en",
            judge=memo,
            stream=open(root / f"{layout}.log", "w"),
            options=GradeOptions(**OPTIONS),
        )
        assert status == EXIT_OK, (root / f"{layout}.log").read_text()
        out[layout] = root / f"{layout}-out"
    return out, memo, root


def test_canvas_class(classes):
    out = classes[0]["canvas"]
    rows = read_grades(out)
    assert sorted(rows) == ["1001", "1002", "1003", "1004", "1005"]  # the manifest is no student
    assert rows["1001"]["verdict"] == "accepted" and rows["1001"]["points"] == "10.00"  # BOM read as Python does
    assert rows["1001"]["name"] == "smithalice" and rows["1001"]["late"] == ""
    assert rows["1002"]["late"] == "1d" and rows["1002"]["points"] == "9.00"  # Canvas's _LATE_: one day, -10%
    assert (
        rows["1003"]["verdict"] == "wrong_answer"
        and "left out leechris_1003_5004_helper.py: another file" in rows["1003"]["note"]
    )
    assert rows["1004"]["verdict"] == "accepted"  # GBK with its coding line, inside the student's own zip
    assert rows["1005"]["score"] == "0.0000" and "starter not changed" in rows["1005"]["note"]
    assert all(r["max_points"] == "10" and r["tiers"] in ("cpu", "") for r in rows.values())
    with open(out / "skipped.csv", newline="", encoding="utf-8") as handle:
        assert [(r["path"], r["reason"][:7]) for r in csv.DictReader(handle)] == [("manifest.csv", "neither")]
    lines = list(csv.reader(io.StringIO((out / "canvas.csv").read_text(encoding="utf-8-sig"))))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Fixture: add"]
    assert lines[1][0].strip() == "Points Possible" and lines[1][-1] == "10"
    assert {line[1]: line[-1] for line in lines[2:]} == {
        "1001": "10",
        "1002": "9",
        "1003": "0",
        "1004": "10",
        "1005": "0",
    }


def test_moodle_class_and_its_worksheet(classes):
    out = classes[0]["moodle"]
    rows = read_grades(out)
    assert sorted(rows) == ["2001", "2002", "2003", "2005"]
    assert rows["2001"]["name"] == "张三" and rows["2003"]["verdict"] == "accepted"
    assert rows["2005"]["verdict"] == "compile_error"
    with open(out / "moodle.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == [  # the worksheet Moodle exports, in its order (its import needs the Last modified (grade))
        "Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
        "Last modified (submission)", "Last modified (grade)", "Feedback comments",
    ]  # fmt: skip
    with open(out / "moodle.csv", newline="", encoding="utf-8") as handle:
        sheet = list(csv.DictReader(handle))
    assert sheet[0]["Status"] == "Submitted for grading" and sheet[0]["Last modified (grade)"] == "-"
    assert sheet[0]["Last modified (submission)"] == "Sunday, 1 March 2026, 12:00 PM"  # the file's time, as Moodle
    grades = {r["Identifier"]: r["Grade"] for r in sheet}
    assert grades == {"Participant 2001": "10.00", "Participant 2002": "0.00", "Participant 2003": "10.00",
                      "Participant 2005": "0.00"}  # fmt: skip
    assert not (out / "canvas.csv").read_text(encoding="utf-8-sig").splitlines()[2:]  # no Canvas students here


def test_gradescope_class_one_row_per_student_with_attempts(classes):
    out = classes[0]["gradescope"]
    rows = read_grades(out)
    assert sorted(rows) == ["222", "333"]
    assert rows["333"]["name"] == "Alice Smith" and rows["333"]["attempts"] == "submission_111"
    assert rows["333"]["verdict"] == "accepted" and rows["333"]["late"] == ""
    results = json.loads((out / "gradescope" / "333" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 10 and sum(t["max_score"] for t in results["tests"]) == pytest.approx(10, abs=0.01)


def test_blackboard_class_latest_attempt_and_late_by_the_deadline(classes):
    out = classes[0]["blackboard"]
    rows = read_grades(out)
    assert sorted(rows) == ["asmith", "bjones"]
    assert rows["asmith"]["verdict"] == "accepted" and rows["asmith"]["name"] == "Alice Smith"
    assert rows["asmith"]["attempts"] == "Exercise 900_asmith_attempt_2026-03-01-10-20-30_900.py"
    assert rows["bjones"]["late"] == "2d" and rows["bjones"]["points"] == "8.00"  # two days past: -20%


def test_each_source_is_judged_once_across_layouts(classes):
    assert classes[1].calls == 5  # reference (BOM too), wrong, GBK, starter, syntax error


def test_grades_xlsx_holds_the_same_table_and_chinese_opens_as_written(classes):
    from openpyxl import load_workbook

    out = classes[0]["moodle"]
    sheet = load_workbook(out / "grades.xlsx").active
    table = [[cell.value for cell in row] for row in sheet.iter_rows()]
    header = next(csv.reader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))
    assert table[0] == header
    by_id = {row[0]: dict(zip(header, row)) for row in table[1:]}
    assert by_id["2001"]["name"] == "张三" and by_id["2001"]["points"] == 10


def test_class_report_names_everyone_and_the_compile_error(classes):
    html = (classes[0]["moodle"] / "class-report.html").read_text(encoding="utf-8")
    roster = html[html.index('id="roster"') :]
    for student in ("2001", "2002", "2003", "2005"):
        assert f"<code>{student}</code>" in roster and f'href="feedback/{student}.md"' in roster
    judged_not = html[html.index('id="not-judged"') : html.index('id="pending"')]
    assert "2005" in judged_not and "compile_error" in judged_not and "line" in judged_not.lower()


def test_outputs_are_group_readable(classes):
    out = classes[0]["canvas"]
    for path in (out / "grades.csv", out / "feedback" / "1001.md", out / "gradescope" / "1001" / "results.json"):
        assert path.stat().st_mode & stat.S_IRGRP, path
    assert (out / "feedback").stat().st_mode & stat.S_IXGRP


def test_only_regrades_one_student_with_the_first_runs_options_and_keeps_the_rest(classes, fixture_settings):
    outs, memo, root = classes
    out = outs["moodle"]
    before = read_grades(out)
    resubmitted = root / "moodle" / "Bob Jones_2002_assignsubmission_file_" / "900.py"
    resubmitted.write_text(REFERENCE, encoding="utf-8")
    os.utime(resubmitted, (HANDED_IN, HANDED_IN))  # handed in before the deadline
    status = grade_class(
        "900",
        root / "moodle",
        out,
        fixture_settings,
        jobs=1,
        judge=memo,
        stream=open(root / "only.log", "w"),
        only="2002",
    )
    assert status == EXIT_OK
    after = read_grades(out)
    assert sorted(after) == sorted(before) and after["2002"]["verdict"] == "accepted"
    assert after["2002"]["points"] == "10.00" and after["2002"]["max_points"] == "10"  # the first run's --points

    def kept(rows):  # Bob's new file is the reference: the others' similar_to now names him, nothing else moves
        return {k: {c: v for c, v in r.items() if c != "similar_to"} for k, r in rows.items() if k != "2002"}

    assert kept(after) == kept(before) and "2002" in after["2001"]["similar_to"]
    assert sorted(p.stem for p in (out / "feedback").glob("*.md")) == sorted(before)  # nothing deleted
    assert "Participant 2002,Bob Jones,,Submitted for grading,10.00" in (out / "moodle.csv").read_text()
    assert "1 of 1 students graded" in (root / "only.log").read_text()
    assert (
        grade_class(
            "900",
            root / "moodle",
            out,
            fixture_settings,
            jobs=1,
            judge=memo,
            stream=open(root / "x.log", "w"),
            only="nobody",
        )
        == EXIT_USAGE
    )


def test_another_problems_folder_is_refused_unless_replace(classes, fixture_settings):
    outs, memo, root = classes
    other = write_tree(
        root / "other-out", {"reports.jsonl": json.dumps({"student": "x", "report": {"problem": "104"}})}
    )
    log = root / "other.log"
    args = ("900", root / "gradescope", other, fixture_settings)
    assert grade_class(*args, jobs=1, judge=memo, stream=open(log, "w")) == EXIT_USAGE
    assert "exercise 104" in log.read_text() and (other / "reports.jsonl").exists()
    assert grade_class(*args, jobs=1, judge=memo, stream=open(log, "w"), replace=True) == EXIT_OK
    [aside] = other.glob("previous-*")
    assert (aside / "reports.jsonl").exists() and sorted(read_grades(other)) == ["222", "333"]
