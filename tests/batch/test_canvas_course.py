"""A Canvas course end to end: submission times from Canvas's API (a dump of canvasapi's Submission objects, as
pandas writes them, where `id` is the submission's and `user_id` the student's) or a Canvas CSV export (Student ID,
SIS User ID); "N of M rows matched", none an error; canvas.csv names students as the gradebook does; each attempt
timed by its own time."""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import UTC, datetime

import pytest

from judge.batch.command import command_options
from judge.batch.grade import EXIT_OK, EXIT_USAGE, grade_class
from judge.cli.subcommands import build_parser
from judge.errors import JudgeError
from tests.batch.conftest import REFERENCE, WRONG, read_grades, write_tree

pytestmark = pytest.mark.slow  # judges a class end to end: the full lane's, not the fast lane's

# user id -> (Canvas's file-name stem, the gradebook's name, SIS User ID, when it was handed in, submission id). The
# submission ids are other students' user ids: a reader that took `id` for the student would time the wrong one.
STUDENTS = {
    "1001": ("alvarezmaria", "Alvarez, Maria", "S-1001", "2026-11-28T15:40:00Z", 1002),
    "1002": ("chenwei", "Chen, Wei", "S-1002", "2026-11-30T15:30:00Z", 1003),  # two days late (+08:00 deadline)
    "1003": ("okafornneka", "Okafor, Nneka", "S-1003", "2026-11-29T10:00:00Z", 1001),  # one day late
}
DEADLINE = "2026-11-28T23:59:00+08:00"
FIELDS = ["id", "user_id", "assignment_id", "submitted_at", "attempt", "late", "seconds_late", "workflow_state"]


def _download(root):
    """Canvas's bulk download; every file copied without -p (their times say nothing) and marked _LATE_ for 1002."""
    files = {}
    for user, (stem, _, _, _, sub) in STUDENTS.items():
        late = "_LATE" if user == "1002" else ""
        files[f"{stem}{late}_{user}_{sub + 5000}_900.py"] = REFERENCE
    return write_tree(root / "class", files)


def _submissions():
    """canvasapi's Submission objects, built from the API's JSON as canvasapi builds them."""
    from canvasapi.requester import Requester
    from canvasapi.submission import Submission

    requester = Requester("https://canvas.example.edu", "token")
    out = [
        Submission(requester, {"id": sub, "user_id": int(user), "assignment_id": 77, "submitted_at": when,
                               "attempt": 1, "late": False, "seconds_late": 0, "workflow_state": "submitted"})
        for user, (_, _, _, when, sub) in STUDENTS.items()
    ]  # fmt: skip
    out.append(Submission(requester, {"id": 999, "user_id": 1009, "assignment_id": 77, "submitted_at": None,
                                      "attempt": None, "workflow_state": "unsubmitted"}))  # fmt: skip
    return out


def _records():
    """Each Submission's attributes as `pd.DataFrame([vars(s) for s in subs])` holds them (canvasapi adds a
    `*_date` datetime for every field that looks like a time, user_id_date too), less the requester."""
    return [{k: v for k, v in vars(s).items() if k != "_requester"} for s in _submissions()]


def _api_csv(path):
    records = _records()
    header = list(dict.fromkeys(k for r in records for k in r))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["", *header])  # pandas' index column
        for n, record in enumerate(records):
            writer.writerow([n, *("" if record.get(k) is None else str(record.get(k)) for k in header)])
    return path


def _api_json(path):
    records = [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()} for r in _records()]
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _grade(root, judge, settings, *extra):
    argv = ["grade", "900", str(root / "class"), "--out", str(root / "out"), "--points", "10", "--late-penalty",
            "10", "--deadline", DEADLINE, "--lms", "canvas", *extra]  # fmt: skip
    with open(root / "log", "w", encoding="utf-8") as stream:
        status = grade_class(
            "900", root / "class", root / "out", settings, jobs=2, lang="en", judge=judge, stream=stream,
            options=command_options(build_parser().parse_args(argv), settings),
        )  # fmt: skip
    return status, (root / "log").read_text(encoding="utf-8")


@pytest.mark.parametrize("dump", [_api_csv, _api_json], ids=["pandas-csv", "json"])
def test_canvas_api_dump_times_each_student_by_user_id_never_by_submission_id(
    dump, tmp_path, fixture_judge, fixture_settings
):
    _download(tmp_path)
    times = dump(tmp_path / f"submissions.{'csv' if dump is _api_csv else 'json'}")
    status, log = _grade(tmp_path, fixture_judge, fixture_settings, "--submitted-at", str(times))
    assert status == EXIT_OK, log
    assert "3 of 3 rows matched students of the download" in log and "'user_id'" in log
    rows = read_grades(tmp_path / "out")
    assert {k: r["late"] for k, r in rows.items()} == {"1001": "", "1002": "2d", "1003": "1d"}
    assert {k: r["points"] for k, r in rows.items()} == {"1001": "10.00", "1002": "8.00", "1003": "9.00"}
    assert rows["1001"]["submitted"] == "2026-11-28T23:40+08:00"  # shown in the course's zone, with its offset


def test_a_canvas_csv_by_student_id_or_sis_user_id(tmp_path, fixture_judge, fixture_settings):
    _download(tmp_path)
    by_id = tmp_path / "by-id.csv"
    by_id.write_text(
        "Student Name,Student ID,Submitted At\n"
        + "".join(f'"{name}",{user},{when}\n' for user, (_, name, _, when, _) in STUDENTS.items()),
        encoding="utf-8",
    )
    status, log = _grade(tmp_path, fixture_judge, fixture_settings, "--submitted-at", str(by_id))
    assert status == EXIT_OK and "3 of 3 rows matched" in log and "'student id'" in log
    assert read_grades(tmp_path / "out")["1002"]["late"] == "2d"
    by_sis = tmp_path / "by-sis.csv"
    by_sis.write_text(
        "SIS User ID,Submitted At\n" + "".join(f"{sis},{when}\n" for _, _, sis, when, _ in STUDENTS.values()),
        encoding="utf-8",
    )  # matched through the gradebook's SIS User ID -> ID
    gradebook = tmp_path / "gradebook.csv"
    gradebook.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Exercise 900: add (4411)\n"
        "    Points Possible,,,,,10\n"
        + "".join(f'"{name}",{user},{sis},{sis.lower()},CS 101,\n' for user, (_, name, sis, _, _) in STUDENTS.items()),
        encoding="utf-8",
    )
    status, log = _grade(
        tmp_path, fixture_judge, fixture_settings, "--submitted-at", str(by_sis), "--gradebook", str(gradebook)
    )
    assert status == EXIT_OK and "3 of 3 rows matched" in log, log
    table = list(csv.reader(io.StringIO((tmp_path / "out" / "canvas.csv").read_text(encoding="utf-8-sig"))))
    assert table[0][-1] == "Exercise 900: add (4411)"
    assert {r[1]: r[:5] for r in table[2:]}["1001"] == ["Alvarez, Maria", "1001", "S-1001", "s-1001", "CS 101"]
    assert {r[1]: r[-1] for r in table[2:]} == {"1001": "10", "1002": "8", "1003": "9"}


def test_a_times_file_that_matches_no_one_is_an_error_naming_the_file_and_columns(
    tmp_path, fixture_judge, fixture_settings
):
    _download(tmp_path)
    records = [{k: v for k, v in r.items() if k not in ("user_id", "user_id_date")} for r in _records()]
    only_ids = tmp_path / "submission-ids.json"  # a dump without user_id: its ids are submissions'
    only_ids.write_text(json.dumps(records, default=str), encoding="utf-8")
    with pytest.raises(JudgeError) as refused:  # the command line prints it and exits 2
        _grade(tmp_path, fixture_judge, fixture_settings, "--submitted-at", str(only_ids))
    assert f"--submitted-at {only_ids}: its columns (id, " in refused.value.message
    assert "name no student column" in refused.value.message and "user_id" in refused.value.message
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("Student ID,Submitted At\n42,2026-11-28T10:00Z\n", encoding="utf-8")
    status, log = _grade(tmp_path, fixture_judge, fixture_settings, "--submitted-at", str(wrong))
    assert status == EXIT_USAGE
    assert f"--submitted-at {wrong}: none of its rows matched a student of the download" in log
    assert "'student id'" in log and "'submitted at'" in log


def test_each_attempt_is_timed_by_its_own_time(tmp_path, fixture_judge, fixture_settings):
    """A times file holds the student's latest hand-in: --attempt first judges the first upload by its own time."""
    write_tree(
        tmp_path / "class",
        {"alvarezmaria_1001_6001_900.py": REFERENCE, "alvarezmaria_1001_6001_900-1.py": REFERENCE + "# again\n"},
    )
    early = datetime(2026, 11, 27, 12, tzinfo=UTC).timestamp()
    os.utime(tmp_path / "class" / "alvarezmaria_1001_6001_900.py", (early, early))
    times = tmp_path / "times.csv"
    times.write_text("user_id,submitted_at\n1001,2026-11-30T15:30:00Z\n", encoding="utf-8")  # the re-upload: late
    status, log = _grade(tmp_path, fixture_judge, fixture_settings, "--submitted-at", str(times))
    assert status == EXIT_OK and read_grades(tmp_path / "out")["1001"]["late"] == "2d"
    first_only = ("--submitted-at", str(times), "--attempt", "first", "--late-from-mtime")
    status, log = _grade(tmp_path, fixture_judge, fixture_settings, *first_only)
    first = read_grades(tmp_path / "out")["1001"]
    assert status == EXIT_OK and first["late"] == "" and first["submitted"].startswith("2026-11-27T20:00+08:00")
    (tmp_path / "class" / "alvarezmaria_1001_6001_900-1.py").write_text(WRONG, encoding="utf-8")  # the re-upload
    best_only = ("--submitted-at", str(times), "--attempt", "best", "--late-from-mtime")
    status, log = _grade(tmp_path, fixture_judge, fixture_settings, *best_only)
    best = read_grades(tmp_path / "out")["1001"]  # the first upload scores best: judged by its own time, on time
    assert status == EXIT_OK and best["verdict"] == "accepted" and best["late"] == "" and best["points"] == "10.00"


def test_the_help_says_canvas_gradebook_exports_have_no_times(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["grade", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Canvas's gradebook export has no times" in text and "user_id, submitted_at" in text
    assert "gradebook or API export" not in text
