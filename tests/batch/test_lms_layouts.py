"""LMS downloads: Canvas, Moodle, Gradescope and Blackboard names become one entry per student, latest attempt."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime

from judge.batch.exercise import Exercise, operators_of
from judge.batch.inputs import scan
from judge.batch.layouts import parse_name
from tests.batch.conftest import FIXTURE, REFERENCE, WRONG, write_tree, write_zip

EXERCISE = Exercise("900.py", (FIXTURE / "starter.py").read_text(encoding="utf-8"), frozenset({"add"}))
HELPER = "def helper(x):\n    return x\n"
GS_METADATA = """\
submission_111:
  :submitters:
  - :name: Alice Smith
    :sid: '1001'
    :email: alice@example.edu
  :created_at: 2026-03-01 10:20:30.123456789 -08:00
  :score: 0.0
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


def by_id(found):
    return {e.student: e for e in found.entries}


def test_canvas_names_give_the_user_id_the_name_and_the_late_mark(tmp_path):
    write_tree(
        tmp_path,
        {
            "smithalice_1001_5001_900.py": REFERENCE,
            "jonesbob_LATE_1002_5002_900.py": WRONG,
            "leechris_1003_5003_900.py": REFERENCE,
            "leechris_1003_5004_helper.py": HELPER,
        },
    )
    found = scan(tmp_path, EXERCISE)
    entries = by_id(found)
    assert sorted(entries) == ["1001", "1002", "1003"]
    assert entries["1001"].name == "smithalice" and entries["1001"].layout == "canvas"
    assert entries["1002"].late_marker and not entries["1001"].late_marker
    assert entries["1003"].data == REFERENCE.encode()  # named like the exercise
    assert any("left out leechris_1003_5004_helper.py: another file" in n for n in entries["1003"].notes)


def test_a_canvas_reupload_is_a_newer_attempt_judged_whatever_the_file_times(tmp_path):
    """Canvas names a re-upload of the same file 900-1.py (the number after the user id is each file's own): the
    newest upload is judged, even when a copy without -p gave the older one the newer time, and the feedback's
    note names the judged file and the one left out."""
    import os

    write_tree(tmp_path, {"ortizoscar_10016_70016_900.py": WRONG, "ortizoscar_10016_70116_900-1.py": REFERENCE})
    os.utime(tmp_path / "ortizoscar_10016_70116_900-1.py", (1_000_000, 1_000_000))  # the newer upload, oldest time
    os.utime(tmp_path / "ortizoscar_10016_70016_900.py", (2_000_000, 2_000_000))
    entry = by_id(scan(tmp_path, EXERCISE))["10016"]
    assert entry.data == REFERENCE.encode()
    assert entry.attempts == ["ortizoscar_10016_70016_900.py"]
    assert any(
        "2 attempts: judged the latest (ortizoscar_10016_70116_900-1.py); left out: ortizoscar_10016_70016_900.py" in n
        for n in entry.notes
    ), entry.notes
    assert parse_name("ortizoscar_10016_70116_900-2.py", True).order == (0, 2)


def test_moodle_folders_and_flat_files_give_the_participant_id(tmp_path):
    write_tree(
        tmp_path,
        {
            "Alice Smith_2001_assignsubmission_file_/900.py": REFERENCE,
            "Bob Jones_2002_assignsubmission_file_/work/mine.py": WRONG,
            "Chris Lee_2003_assignsubmission_file_900.py": REFERENCE,
            "Dana Wu_2004_assignsubmission_onlinetext_/onlinetext.html": "<p>hi</p>",
        },
    )
    entries = by_id(scan(tmp_path, EXERCISE))
    assert sorted(entries) == ["2001", "2002", "2003", "2004"]
    assert entries["2001"].name == "Alice Smith" and entries["2001"].layout == "moodle"
    assert entries["2002"].data == WRONG.encode() and entries["2003"].data == REFERENCE.encode()
    assert entries["2004"].data is None and "no .py file" in entries["2004"].reason


def test_gradescope_export_keeps_each_students_latest_submission_by_the_metadata(tmp_path):
    write_tree(
        tmp_path,
        {
            "submission_metadata.yml": GS_METADATA,
            "submission_111/900.py": WRONG,
            "submission_222/900.py": WRONG,
            "submission_333/900.py": REFERENCE,
        },
    )
    found = scan(tmp_path, EXERCISE)
    entries = by_id(found)
    assert sorted(entries) == ["222", "333"]  # Alice's two submissions are one student: the later one
    alice = entries["333"]
    assert alice.name == "Alice Smith" and alice.data == REFERENCE.encode()
    assert alice.attempts == ["submission_111"] and alice.submitted == datetime(2026, 3, 3, 8, tzinfo=UTC)
    assert [s.path for s in found.skipped] == ["submission_metadata.yml"]


def test_blackboard_long_and_short_forms_and_the_receipt(tmp_path):
    write_tree(
        tmp_path,
        {
            "Exercise 900_asmith_attempt_2026-03-01-10-20-30_900.py": WRONG,
            "Exercise 900_asmith_attempt_2026-03-01-10-20-30.txt": "Name: Alice Smith (asmith)\nAssignment: 900\n",
            "Exercise 900_asmith_attempt_2026-03-02-08-00-00_900.py": REFERENCE,
            "Bob Jones_bjones_attempt_2026-03-01.py": WRONG,
        },
    )
    found = scan(tmp_path, EXERCISE)
    entries = by_id(found)
    assert sorted(entries) == ["asmith", "bjones"]
    assert entries["asmith"].data == REFERENCE.encode() and entries["asmith"].name == "Alice Smith"
    assert entries["asmith"].attempts == ["Exercise 900_asmith_attempt_2026-03-01-10-20-30_900.py"]
    assert entries["asmith"].submitted == datetime(2026, 3, 2, 8, tzinfo=UTC)
    assert entries["bjones"].name == "Bob Jones" and entries["bjones"].data == WRONG.encode()
    assert any("receipt" in s.reason for s in found.skipped)


def test_blackboard_user_ids_with_underscores_stay_whole(tmp_path):
    """Before, the user was the last part before _attempt_: j_doe and m_doe both became "doe", one student."""
    write_tree(
        tmp_path / "class",
        {
            "HW_4_j_doe_attempt_2026-03-01-10-20-30_900.py": WRONG,
            "HW_4_j_doe_attempt_2026-03-02-08-00-00_900.py": REFERENCE,
            "HW_4_m_doe_attempt_2026-03-01-09-00-00_notes_attempt_2026-03-01.py": WRONG,
            "HW_4_asmith_attempt_2026-03-01-09-00-00_900.py": REFERENCE,
        },
    )
    entries = by_id(scan(tmp_path / "class", EXERCISE))
    assert sorted(entries) == ["asmith", "j_doe", "m_doe"]  # the assignment "HW_4" is what all names share
    assert entries["j_doe"].data == REFERENCE.encode()
    assert entries["j_doe"].attempts == ["HW_4_j_doe_attempt_2026-03-01-10-20-30_900.py"]
    assert entries["m_doe"].data == WRONG.encode()  # anchored on the first _attempt_<time>: the file's name is free
    write_tree(  # one student alone: the receipt names the user id
        tmp_path / "one",
        {
            "HW_4_j_doe_attempt_2026-03-02-08-00-00_900.py": REFERENCE,
            "HW_4_j_doe_attempt_2026-03-02-08-00-00.txt": "Name: Jane Doe (j_doe)\nAssignment: HW_4\n",
        },
    )
    [jane] = scan(tmp_path / "one", EXERCISE).entries
    assert (jane.student, jane.name, jane.data) == ("j_doe", "Jane Doe", REFERENCE.encode())


def test_files_that_are_not_submissions_go_to_skipped_and_plain_ids_stay(tmp_path):
    write_tree(tmp_path, {"alice.py": REFERENCE, "manifest.csv": "a,b", "README.txt": "notes", "bob/900.py": WRONG})
    found = scan(tmp_path, EXERCISE)
    assert sorted(by_id(found)) == ["alice", "bob"]
    assert {s.path for s in found.skipped} == {"manifest.csv", "README.txt"}
    assert all("neither a .py file, a notebook (.ipynb) nor a zip" in s.reason for s in found.skipped)


def test_a_students_own_zip_is_opened_under_the_same_limits(tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("project/900.py", REFERENCE)
        archive.writestr("project/../../escape.py", "x = 1")
    write_tree(tmp_path, {"carol/work.zip": inner.getvalue(), "smithdan_1004_5005_hw.zip": inner.getvalue()})
    entries = by_id(scan(tmp_path, EXERCISE))
    assert entries["carol"].data == REFERENCE.encode() and entries["carol"].origin == "carol/work.zip/project/900.py"
    assert entries["1004"].data == REFERENCE.encode()


def test_a_nested_zip_in_a_zip_download(tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("900.py", REFERENCE)
    archive = write_zip(tmp_path / "canvas.zip", {"leechris_1003_5003_mine.zip": inner.getvalue()})
    assert by_id(scan(archive, EXERCISE))["1003"].data == REFERENCE.encode()


def test_the_only_file_defining_the_exercises_operators_is_the_main_file(tmp_path):
    write_tree(tmp_path, {"erin/solution.py": REFERENCE, "erin/utils.py": HELPER})
    erin = by_id(scan(tmp_path, EXERCISE))["erin"]
    assert erin.origin == "erin/solution.py" and any("left out erin/utils.py: another file" in n for n in erin.notes)


def test_layout_names_parse():
    assert parse_name("doejane_LATE_42_7_900.py", True).late
    assert parse_name("alice.py", True) is None and parse_name("alice", False) is None
    assert parse_name("submission_12", False).student == "12"


def test_starter_and_operator_detection():
    starter = EXERCISE.starter
    assert operators_of(starter) == {"add"}
    assert EXERCISE.unchanged(starter)
    assert EXERCISE.unchanged("# my attempt\n" + starter.replace('"""Return a + b."""', '"""Sum."""'))
    assert EXERCISE.unchanged("import torch\nx = 1\n")  # defines no operator of the exercise
    assert not EXERCISE.unchanged(REFERENCE)
    ops = operators_of((FIXTURE.parents[2] / ".." / "problems" / "104-free-slots" / "starter.py").resolve().read_text())
    assert ops == {"free_slots"}


def test_attempt_first_grades_the_first_upload_and_keeps_every_attempt_for_best(tmp_path):
    write_tree(tmp_path, {"ortizoscar_10016_70016_900.py": WRONG, "ortizoscar_10016_70116_900-1.py": REFERENCE})
    first = by_id(scan(tmp_path, EXERCISE, attempt="first"))["10016"]
    assert first.data == WRONG.encode() and first.attempts == ["ortizoscar_10016_70116_900-1.py"]
    assert any("2 attempts: judged the first (ortizoscar_10016_70016_900.py)" in n for n in first.notes), first.notes
    assert [v.attempt for v in first.versions] == ["ortizoscar_10016_70016_900.py", "ortizoscar_10016_70116_900-1.py"]
    assert [v.data for v in first.versions] == [WRONG.encode(), REFERENCE.encode()]


def test_choose_best_keeps_the_best_score_and_the_latest_of_equals(tmp_path):
    from judge.batch.inputs import choose_best

    write_tree(
        tmp_path,
        {
            "submission_metadata.yml": GS_METADATA,
            "submission_111/900.py": REFERENCE,  # Alice's first submission is her best
            "submission_222/900.py": WRONG,
            "submission_333/900.py": WRONG,
        },
    )
    alice = by_id(scan(tmp_path, EXERCISE, attempt="best"))["333"]
    assert [v.attempt for v in alice.versions] == ["submission_111", "submission_333"]
    best = choose_best(alice, {"submission_111/900.py": 1.0, "submission_333/900.py": 0.5})
    assert best.data == REFERENCE.encode() and best.student == "333" and best.attempts == ["submission_333"]
    assert any("judged each; kept the best score" in n and "(submission_111)" in n for n in best.notes), best.notes
    tie = choose_best(alice, {"submission_111/900.py": 1.0, "submission_333/900.py": 1.0})
    assert tie.data == WRONG.encode()  # equal scores: the latest


def test_grade_attempt_best_judges_each_attempt_and_grades_the_best(fixture_judge, fixture_settings, tmp_path):
    from judge.batch.grade import grade_class
    from judge.batch.policy import GradeOptions
    from tests.batch.conftest import read_grades

    write_tree(
        tmp_path / "class",
        {
            "ortizoscar_10016_70016_900.py": REFERENCE,
            "ortizoscar_10016_70116_900-1.py": WRONG,
            "lee_1003_5003_900.py": WRONG,
        },
    )
    log = tmp_path / "log.txt"
    with open(log, "w") as stream:
        status = grade_class(
            "900",
            tmp_path / "class",
            tmp_path / "out",
            fixture_settings,
            jobs=1,
            lang="en",
            judge=fixture_judge,
            stream=stream,
            options=GradeOptions(attempt="best"),
        )
    assert status == 0
    grades = read_grades(tmp_path / "out")
    assert grades["10016"]["verdict"] == "accepted" and grades["10016"]["source"] == "ortizoscar_10016_70016_900.py"
    assert (
        grades["10016"]["attempts"] == "ortizoscar_10016_70116_900-1.py" and grades["1003"]["verdict"] == "wrong_answer"
    )
    assert "--attempt best: judging 2 attempts of 1 students" in log.read_text()
