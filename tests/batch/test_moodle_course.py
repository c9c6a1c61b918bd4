"""A Moodle course in Asia/Shanghai, end to end through the command line's options: the grading worksheet's
zone-less times in Moodle's own format, a deadline with its offset, an extension, the instructor's adjustments,
per-check points columns, and feedback that adds up; `--only` and a cached re-run keep the instructor's hand."""

from __future__ import annotations

import csv
import io
import json

import pytest

from judge.batch.command import grade_options
from judge.batch.grade import EXIT_OK, EXIT_USAGE, grade_class
from judge.cli.subcommands import build_parser
from tests.batch.conftest import FIXTURE, REFERENCE, read_grades, write_tree

pytestmark = pytest.mark.slow  # judges a class end to end: the full lane's, not the fast lane's

STARTER = (FIXTURE / "starter.py").read_text(encoding="utf-8")
PARTIAL = "def add(a, b):\n    return a + b if a.numel() == 1 else a - b\n"  # passes test_add[small] alone
CLASS = {
    "张三_2001_assignsubmission_file_/900.py": REFERENCE,
    "Bob Jones_2002_assignsubmission_file_/900.py": PARTIAL,
    "Chris Lee_2003_assignsubmission_file_/900.py": REFERENCE,
    "Dana Wu_2004_assignsubmission_file_/900.py": REFERENCE,
    "Eve Zhao_2005_assignsubmission_file_/900.py": STARTER,
}
# Moodle's grading worksheet, as "Download grading worksheet" writes it: the site's zone (Asia/Shanghai), no offset.
HEADER = (
    "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
    "Last modified (submission),Last modified (grade),Feedback comments\n"
)
WORKSHEET = (
    HEADER
    + """\
Participant 2001,张三,zs@example.edu,Submitted for grading,,10.00,Yes,"Saturday, 28 November 2026, 11:40 PM",-,
Participant 2002,Bob Jones,bj@example.edu,Submitted for grading,,10.00,Yes,"Saturday, 28 November 2026, 4:05 PM",-,
Participant 2003,Chris Lee,cl@example.edu,Submitted for grading,,10.00,Yes,"Monday, 30 November 2026, 9:10 PM",-,
Participant 2004,Dana Wu,dw@example.edu,Submitted for grading,,10.00,Yes,"Tuesday, 1 December 2026, 10:00 AM",-,
Participant 2005,Eve Zhao,ez@example.edu,Submitted for grading,,10.00,Yes,"Friday, 27 November 2026, 8:00 PM",-,
Participant 2006,No Show,ns@example.edu,No submission,,10.00,Yes,-,-,
"""
)
EXTENSIONS = "student,deadline\n2004,2026-12-02T23:59\n"
ADJUSTMENTS = (
    "student,points,reason\n"
    "2002,5,hidden test regraded by hand\n"
    "2001,3,bonus for the write-up\n"
    "2003,-1,late code review\n"
    "2005,2,attended the review session\n"
)


def _argv(root, *extra):
    return [
        "grade", "900", str(root / "class"), "--out", str(root / "out"), "--points", "10", "--late-penalty", "10",
        "--deadline", "2026-11-28T23:59:00+08:00", "--worksheet", str(root / "worksheet.csv"), "--lms", "moodle",
        "--extensions", str(root / "extensions.csv"), "--adjustments", str(root / "adjustments.csv"), *extra,
    ]  # fmt: skip


def _run(root, judge, settings, *extra, only=None, log="run.log"):
    args = build_parser().parse_args(_argv(root, *extra))
    with open(root / log, "w", encoding="utf-8") as stream:
        status = grade_class(
            "900", root / "class", root / "out", settings, jobs=2, lang="en", judge=judge, stream=stream,
            options=grade_options(args), only=only,
        )  # fmt: skip
    return status, (root / log).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def course(tmp_path_factory, fixture_judge, fixture_settings):
    root = tmp_path_factory.mktemp("moodle-course")
    write_tree(root / "class", CLASS)
    write_tree(
        root, {"worksheet.csv": WORKSHEET, "extensions.csv": EXTENSIONS, "adjustments.csv": ADJUSTMENTS}
    )  # fmt: skip
    status, log = _run(root, fixture_judge, fixture_settings)
    assert status == EXIT_OK, log
    return root, log


def test_the_worksheets_times_are_read_in_the_deadlines_zone_and_the_run_says_so_once(course):
    root, log = course
    assert log.count("read in UTC+08:00, the --deadline's offset") == 1 and "--timezone" in log
    assert "5 of 5 rows matched students of the download" in log  # the "No submission" row carries no time
    rows = read_grades(root / "out")
    # 23:40 and 16:05 in Shanghai on the last evening are on time (read as UTC they were a day late)
    assert rows["2001"]["submitted"] == "2026-11-28T23:40+08:00" and rows["2001"]["late"] == ""
    assert rows["2002"]["submitted"] == "2026-11-28T16:05+08:00" and rows["2002"]["late"] == ""
    assert rows["2003"]["late"] == "2d" and rows["2003"]["late_penalty"] == "2.00"  # 1 day 21 h: two days begun
    assert all(r["deadline"].startswith("2026-11-28T23:59+08:00") for k, r in rows.items() if k != "2004")
    with open(root / "out" / "moodle.csv", newline="", encoding="utf-8") as handle:
        sheet = {r["Identifier"]: r for r in csv.DictReader(handle)}
    assert sheet["Participant 2001"]["Last modified (submission)"] == "Saturday, 28 November 2026, 11:40 PM"
    html = (root / "out" / "class-report.html").read_text(encoding="utf-8")
    roster = html[html.index('id="roster"') :]
    assert "<code>2026-11-28T23:40+08:00</code>" in roster  # each hand-in with its offset, and how late it counts
    assert '2d<div class="sub">+1d 21h 11m</div>' in roster


def test_an_extension_moves_that_students_deadline_and_says_so(course):
    root, _ = course
    dana = read_grades(root / "out")["2004"]
    assert dana["deadline"] == "2026-12-02T23:59+08:00 (extension)" and dana["late"] == "" and dana["points"] == "10.00"
    feedback = (root / "out" / "feedback" / "2004.md").read_text(encoding="utf-8")
    assert "An extension was applied: your deadline is 2026-12-02T23:59+08:00" in feedback
    with open(root / "out" / "moodle.csv", newline="", encoding="utf-8") as handle:
        comment = {r["Identifier"]: r["Feedback comments"] for r in csv.DictReader(handle)}["Participant 2004"]
    assert "An extension was applied" in comment


def test_adjustments_come_after_the_penalty_within_zero_and_the_points_everywhere(course):
    root, _ = course
    out = root / "out"
    rows = read_grades(out)
    assert (rows["2001"]["points"], rows["2001"]["adjustment"]) == ("10.00", "+3")  # 10 + 3, kept at 10
    assert (rows["2002"]["points"], rows["2002"]["adjustment_reason"]) == ("8.33", "hidden test regraded by hand")
    assert rows["2003"]["points"] == "7.00"  # 10 - 20% late = 8, then -1
    assert rows["2005"]["points"] == "2.00" and "starter not changed" in rows["2005"]["note"]
    with open(out / "moodle.csv", newline="", encoding="utf-8") as handle:
        sheet = {r["Identifier"]: r for r in csv.DictReader(handle)}
    assert {k: v["Grade"] for k, v in sheet.items()} == {
        "Participant 2001": "10.00", "Participant 2002": "8.33", "Participant 2003": "7.00",
        "Participant 2004": "10.00", "Participant 2005": "2.00",
    }  # fmt: skip
    assert (
        "Your instructor's adjustment: +5 points (hidden test regraded by hand)"
        in sheet["Participant 2002"]["Feedback comments"]
    )
    results = json.loads((out / "gradescope" / "2002" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 8.33 and "hidden test regraded by hand" in results["output"]
    reports = {json.loads(line)["student"]: json.loads(line) for line in (out / "reports.jsonl").open()}
    assert reports["2003"]["points"] == 7.0 and reports["2003"]["adjustment"] == -1
    from openpyxl import load_workbook

    table = [[c.value for c in r] for r in load_workbook(out / "grades.xlsx").active.iter_rows()]
    by_id = {r[0]: dict(zip(table[0], r)) for r in table[1:]}
    assert by_id["2002"]["points"] == 8.33 and by_id["2002"]["adjustment"] == 5
    assert by_id["2002"]["points:add"] == pytest.approx(3.33)


def test_per_check_columns_add_up_to_the_score_before_penalty(course):
    root, _ = course
    rows = read_grades(root / "out")
    header = next(csv.reader(io.StringIO((root / "out" / "grades.csv").read_text(encoding="utf-8"))))
    assert [c for c in header if c.startswith("points:")] == ["points:add", "points:add_seeded"]
    for row in rows.values():
        before = round(float(row["score"]) * 10, 2) if "starter not changed" not in row["note"] else 0.0
        assert round(float(row["points:add"]) + float(row["points:add_seeded"]), 2) == before, row
    assert (rows["2002"]["points:add"], rows["2002"]["points:add_seeded"]) == ("3.33", "0.00")  # 1 of 3 cases
    assert (rows["2003"]["points:add"], rows["2003"]["points:add_seeded"]) == ("6.67", "3.33")


def test_the_feedback_lists_every_check_with_its_weight_and_points_and_adds_up(course):
    root, _ = course
    bob = (root / "out" / "feedback" / "2002.md").read_text(encoding="utf-8")
    assert "## How the points add up" in bob
    assert "| add | 1/2 | 1 × 2 | 3.33 / 6.67 |" in bob
    assert "| hidden check 1 (addition on seeded random inputs) | 0/1 | 1 | 0.00 / 3.33 |" in bob
    assert "test_add_seeded" not in bob and "add_seeded" not in bob  # the hidden test's own name stays hidden
    assert "| **Sum (before any penalty)** | | 3 | **3.33** |" in bob
    assert "Your instructor's adjustment: +5 points (hidden test regraded by hand)" in bob and "8.33 / 10" in bob
    chris = (root / "out" / "feedback" / "2003.md").read_text(encoding="utf-8")
    assert "Late by 2 day(s): 2 points off" in chris and "-1 points (late code review)" in chris
    assert "**Points: 7 / 10**" in chris


def test_only_and_a_cached_rerun_keep_the_instructors_hand(course, fixture_judge, fixture_settings):
    root, _ = course
    before = read_grades(root / "out")
    status, log = _run(root, fixture_judge, fixture_settings, only="2002", log="only.log")
    assert status == EXIT_OK and "1 of 1 students graded" in log
    assert read_grades(root / "out") == before
    args = ["grade", "900", str(root / "class"), "--out", str(root / "out")]  # a bare re-run: DIR's options
    with open(root / "again.log", "w", encoding="utf-8") as stream:
        status = grade_class(
            "900", root / "class", root / "out", fixture_settings, jobs=2, judge=fixture_judge, stream=stream,
            options=grade_options(build_parser().parse_args(args)),
        )  # fmt: skip
    assert status == EXIT_OK
    again = read_grades(root / "out")
    assert {k: (r["points"], r["adjustment"], r["late"], r["deadline"]) for k, r in again.items()} == {
        k: (r["points"], r["adjustment"], r["late"], r["deadline"]) for k, r in before.items()
    }


def test_a_row_that_names_no_student_is_an_error(course, fixture_judge, fixture_settings, tmp_path):
    root, _ = course
    (root / "adjustments.csv").write_text("student,points,reason\n2002,5,ok\n9999,2,typo\n", encoding="utf-8")
    try:
        status, log = _run(root, fixture_judge, fixture_settings, log="bad.log")
    finally:
        (root / "adjustments.csv").write_text(ADJUSTMENTS, encoding="utf-8")
    assert status == EXIT_USAGE and "--adjustments: 1 row(s) name no student of the download: 9999" in log


def test_timezone_names_the_zone_and_a_machine_zone_is_said(tmp_path, monkeypatch):
    parser = build_parser()
    write_tree(tmp_path, {"worksheet.csv": WORKSHEET})
    base = ["grade", "900", "c", "--out", "o", "--worksheet", str(tmp_path / "worksheet.csv")]
    options = grade_options(parser.parse_args([*base, "--timezone", "Asia/Shanghai", "--deadline", "2026-11-28T23:59"]))
    assert options.timezone == "Asia/Shanghai" and options.notes == []
    assert options.deadline.isoformat() == "2026-11-28T23:59:00+08:00"
    assert options.times_file.match({"2001"}).times["2001"].isoformat() == "2026-11-28T23:40:00+08:00"
    import tzlocal

    monkeypatch.setenv("TZ", "America/Chicago")  # the machine's zone, as tzlocal finds it (it caches it)
    monkeypatch.setattr(tzlocal.unix, "_cache_tz_name", None, raising=False)
    monkeypatch.setattr(tzlocal.unix, "_cache_tz", None, raising=False)
    options = grade_options(parser.parse_args([*base, "--deadline", "2026-11-28T23:59"]))
    assert options.timezone == "America/Chicago" and len(options.notes) == 1
    assert "read in America/Chicago, this machine's zone" in options.notes[0] and "--worksheet" in options.notes[0]
    with pytest.raises(SystemExit):
        parser.parse_args([*base, "--timezone", "Mars/Olympus"])
