"""Lateness from a source that can be trusted: a Canvas or Moodle download's file times make no one late unless
--late-from-mtime says so, and then file times that look reset are refused; --submitted-at and --worksheet give
real times, which win over the download's."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from judge.batch.command import grade_options
from judge.batch.inputs import scan
from judge.batch.lateness import check_file_times, read_times
from judge.batch.policy import GradeOptions, apply
from judge.batch.rows import Row
from judge.cli.subcommands import build_parser
from tests.batch.conftest import REFERENCE, write_tree
from tests.batch.test_lms_layouts import EXERCISE

DEADLINE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
BEFORE, AFTER = datetime(2026, 3, 1, 12, 0, tzinfo=UTC), datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


def _canvas_class(tmp_path, times):
    names = {f"student{n}_{1000 + n}_{5000 + n}_900.py": REFERENCE for n in range(len(times))}
    write_tree(tmp_path, names)
    for name, when in zip(names, times):
        os.utime(tmp_path / name, (when.timestamp(), when.timestamp()))
    return scan(tmp_path, EXERCISE).entries


def test_file_times_make_no_one_late_without_late_from_mtime_and_a_note_says_why(tmp_path):
    entries = _canvas_class(tmp_path, [AFTER, AFTER, AFTER])  # a copy made after the deadline, times reset
    assert {e.submitted_from for e in entries} == {"file"}
    refusal, warning = check_file_times(entries, DEADLINE, late_from_mtime=False)
    assert refusal == "" and "3 submissions carry no time but their files'" in warning
    assert "--submitted-at" in warning and "--worksheet" in warning and "--late-from-mtime" in warning
    rows = [Row(student=e.student, verdict="accepted", score=1.0, layout=e.layout, submitted=e.submitted,
                submitted_from=e.submitted_from) for e in entries]  # fmt: skip
    apply(rows, GradeOptions(points=10, deadline=DEADLINE, late_penalty=50))
    assert [(r.late, r.points) for r in rows] == [(False, 10.0)] * 3  # never silently zeroed


def test_reset_file_times_are_refused_with_late_from_mtime(tmp_path):
    same = _canvas_class(tmp_path / "same", [AFTER, AFTER])
    refusal, _ = check_file_times(same, DEADLINE, late_from_mtime=True)
    assert (
        refusal.startswith("refusing --late-from-mtime") and "all the same" in refusal and "--submitted-at" in refusal
    )
    after = _canvas_class(tmp_path / "after", [AFTER, datetime(2026, 3, 16, tzinfo=UTC)])
    assert "all after the deadline" in check_file_times(after, DEADLINE, late_from_mtime=True)[0]
    mixed = _canvas_class(tmp_path / "mixed", [BEFORE, AFTER])  # plausible times: trusted as asked
    assert check_file_times(mixed, DEADLINE, late_from_mtime=True) == ("", "")


def test_submitted_at_and_a_moodle_worksheet_give_the_times(tmp_path):
    times = tmp_path / "times.csv"
    times.write_text(
        "ID,Student,Submitted\n1000,Zhang San,2026-03-01T12:00:00+00:00\n1001,Li Si,2026-03-04T08:00:00Z\n"
    )
    assert read_times(times).match({"1000", "1001"}).times == {
        "1000": BEFORE,
        "1001": datetime(2026, 3, 4, 8, 0, tzinfo=UTC),
    }
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
        "Last modified (submission),Last modified (grade),Feedback comments\n"
        'Participant 2001,Alice,,Submitted,,10,Yes,"Tuesday, 3 March 2026, 9:10 PM",-,\n'
        "Participant 2002,Bob,,No submission,,10,Yes,-,-,\n"
    )
    sheet = read_times(worksheet, "worksheet")
    sheet.read_in(UTC)
    assert sheet.match({"2001", "2002"}).times == {"2001": datetime(2026, 3, 3, 21, 10, tzinfo=UTC)}
    parser = build_parser()
    options = grade_options(parser.parse_args(["grade", "900", "c", "--out", "o", "--submitted-at", str(times)]))
    assert options.submitted_source == "submitted-at" and options.times_file.match({"1001"}).times["1001"].day == 4
    options = grade_options(parser.parse_args(["grade", "900", "c", "--out", "o", "--worksheet", str(worksheet)]))
    assert options.submitted_source == "worksheet" and list(options.times_file.match({"2001"}).times) == ["2001"]
    assert grade_options(parser.parse_args(["grade", "900", "c", "--out", "o", "--late-from-mtime"])).late_from_mtime


def test_the_course_language_comes_from_the_worksheet_unless_lang_or_practice_lang_say(
    tmp_path, monkeypatch, fixture_judge, fixture_settings
):
    from judge.batch.grade import grade_class
    from judge.batch.lateness import worksheet_language
    from judge.batch.policy import GradeOptions
    from tests.batch.conftest import REFERENCE, write_tree

    english = tmp_path / "en.csv"
    english.write_text("Identifier,Full name,Last modified (submission)\nParticipant 1,A,-\n")
    chinese = tmp_path / "zh.csv"
    chinese.write_text("标识符,全名,最后修改（提交）\n参与者 1,甲,-\n", encoding="utf-8")
    plain = tmp_path / "plain.csv"
    plain.write_text("id,time\n1,2026-03-01\n")
    assert (worksheet_language(english), worksheet_language(chinese), worksheet_language(plain)) == ("en", "zh", None)
    options = grade_options(build_parser().parse_args(["grade", "900", "c", "--out", "o", "--worksheet", str(english)]))
    assert options.course_lang == "en"
    monkeypatch.delenv("PRACTICE_LANG", raising=False)
    classroom = write_tree(tmp_path / "class", {"alice.py": REFERENCE})
    log = tmp_path / "log.txt"
    with open(log, "w") as stream:
        grade_class(
            "900",
            classroom,
            tmp_path / "out",
            fixture_settings,
            jobs=1,
            judge=fixture_judge,
            stream=stream,
            options=GradeOptions(course_lang="en"),
        )
    assert "writing in English, the worksheet's language; --lang zh to change" in log.read_text()
    assert "All tests passed" in (tmp_path / "out" / "feedback" / "alice.md").read_text(encoding="utf-8")
