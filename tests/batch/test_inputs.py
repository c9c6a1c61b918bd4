"""Finding each student's file: a folder of files, a folder per student, a zip of either; hostile archives."""

from __future__ import annotations

import zipfile

import pytest

from judge.batch import inputs
from judge.batch.inputs import BadSubmissions, discover, one_submission
from tests.batch.conftest import REFERENCE, WRONG, write_tree, write_zip


def by_id(entries):
    return {e.student: e for e in entries}


def test_folder_of_files_one_student_each(tmp_path):
    write_tree(tmp_path, {"alice.py": REFERENCE, "bob.py": WRONG, ".hidden.py": "x", "__MACOSX/._alice.py": "junk"})
    entries = by_id(discover(tmp_path, "900.py"))
    assert sorted(entries) == ["alice", "bob"]
    assert entries["alice"].data == REFERENCE.encode() and entries["alice"].origin == "alice.py"


def test_folder_per_student_picks_the_solution_file_then_the_only_py(tmp_path):
    write_tree(
        tmp_path,
        {
            "alice/900.py": REFERENCE,
            "alice/notes.py": "# scratch",
            "bob/work/mine.py": WRONG,
            "carol/a.py": "1",
            "carol/b.py": "2",
            "dave/readme.txt": "no code",
            "erin/900.py": REFERENCE,
            "erin/old/900.py": WRONG,
        },
    )
    entries = by_id(discover(tmp_path, "900.py"))
    assert entries["alice"].data == REFERENCE.encode() and entries["alice"].origin == "alice/900.py"
    assert entries["bob"].data == WRONG.encode() and entries["bob"].origin == "bob/work/mine.py"
    assert entries["carol"].data is None and "several .py files" in entries["carol"].reason
    assert "900.py" in entries["carol"].reason  # says what to name it
    assert entries["dave"].data is None and "no .py file" in entries["dave"].reason
    assert entries["erin"].data is None and "several files named 900.py" in entries["erin"].reason


def test_zip_with_a_single_top_level_folder_is_looked_through(tmp_path):
    archive = write_zip(tmp_path / "export.zip", {"Assignment 3/alice.py": REFERENCE, "Assignment 3/bob/900.py": WRONG})
    entries = by_id(discover(archive, "900.py"))
    assert sorted(entries) == ["alice", "bob"]
    assert entries["bob"].data == WRONG.encode()


def test_zip_of_files_without_a_folder(tmp_path):
    archive = write_zip(tmp_path / "flat.zip", {"alice.py": REFERENCE, "bob.py": WRONG})
    assert sorted(by_id(discover(archive, "900.py"))) == ["alice", "bob"]


def test_duplicate_ids_are_kept_under_suffixed_ids_and_noted(tmp_path):
    write_tree(tmp_path, {"alice.py": REFERENCE, "alice.zip": b"", "alice/900.py": REFERENCE, "alice.txt": WRONG})
    entries = by_id(discover(tmp_path, "900.py"))
    assert sorted(entries) == ["alice", "alice~2", "alice~3"]  # the .txt is no one's submission: skipped
    assert any("kept as alice~2" in n for n in entries["alice~2"].notes)
    assert any("alice~3" in n for n in entries["alice"].notes)


def test_zip_path_traversal_and_absolute_names_are_skipped(tmp_path):
    archive = write_zip(
        tmp_path / "evil.zip",
        {"../escape.py": "x = 1", "/abs.py": "x = 1", "ok.py": REFERENCE, "a/../../up.py": "x = 1"},
    )
    entries = by_id(discover(archive, "900.py"))
    assert sorted(entries) == ["ok"]
    assert not (tmp_path.parent / "escape.py").exists()


def test_zip_bomb_is_refused_as_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "MAX_TOTAL", 8 << 20)  # the real cap is 1 GiB: same check, smaller bomb
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(5):  # 5 x 3 MB of zeros, a few KB compressed
            archive.writestr(f"s{i}.py", b"\0" * (3 << 20))
    with pytest.raises(BadSubmissions, match="zip bomb"):
        discover(path, "900.py")


def test_a_huge_member_is_a_row_with_a_reason_and_never_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "MAX_FILE", 1 << 20)
    path = tmp_path / "big.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("huge.py", b"#" * (3 << 20))
        archive.writestr("ok.py", REFERENCE)
    entries = by_id(discover(path, "900.py"))
    assert entries["huge"].data is None and "bytes" in entries["huge"].reason


def test_not_a_zip_and_missing_paths_are_usage_errors(tmp_path):
    (tmp_path / "class.zip").write_bytes(b"not a zip")
    with pytest.raises(BadSubmissions):
        discover(tmp_path / "class.zip", "900.py")
    with pytest.raises(BadSubmissions):
        discover(tmp_path / "missing", "900.py")


def test_symlinks_are_not_followed(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "alice.py").write_text(REFERENCE)
    (tmp_path / "class" / "mallory.py").symlink_to("/etc/passwd")
    assert sorted(by_id(discover(tmp_path / "class", "900.py"))) == ["alice"]


def test_odd_names_become_safe_ids(tmp_path):
    write_tree(tmp_path, {"Zhang San (2024) <x>.py": REFERENCE})
    [entry] = discover(tmp_path, "900.py")
    assert "/" not in entry.student and "<" not in entry.student and " " not in entry.student


def test_one_submission_for_gradescope(tmp_path):
    write_tree(tmp_path, {"submission/mine.py": WRONG})
    entry = one_submission(tmp_path / "submission", "900.py")
    assert entry.data == WRONG.encode() and entry.student == "submission"


def test_the_output_folder_inside_the_submissions_is_not_a_student(tmp_path):
    write_tree(tmp_path, {"alice.py": REFERENCE, "grades/feedback/alice.md": "# feedback"})
    assert sorted(by_id(discover(tmp_path, "900.py", skip=tmp_path / "grades"))) == ["alice"]
