"""What is left out of a student's submission is said the same way in every layout, each member named with why,
path traversal included; the class zip's own such members go to skipped.csv."""

from __future__ import annotations

from judge.batch.inputs import scan
from tests.batch.conftest import REFERENCE, write_tree, write_zip, zip_bytes
from tests.batch.test_lms_layouts import EXERCISE

HOMEWORK = zip_bytes({"hw/900.py": REFERENCE, "hw/helper.py": "X = 1\n", "../evil.py": "X = 2\n", "/etc/x.py": "X\n",
                      "__MACOSX/hw/._900.py": "mac"})  # fmt: skip
LAYOUTS = {
    "plain": ("alice.zip", "alice"),
    "canvas": ("smithalice_1001_5001_hw.zip", "1001"),
    "moodle": ("Alice Smith_2001_assignsubmission_file_/hw.zip", "2001"),
    "moodle-flat": ("Alice Smith_2001_assignsubmission_file_hw.zip", "2001"),
    "gradescope": ("submission_111/hw.zip", "111"),
    "blackboard": ("HW_asmith_attempt_2026-03-01-10-20-30_hw.zip", "asmith"),
}


def test_the_same_notes_in_every_layout_naming_each_member_left_out_and_why(tmp_path):
    said = {}
    for layout, (name, student) in LAYOUTS.items():
        write_tree(tmp_path / layout, {name: HOMEWORK})
        [entry] = [e for e in scan(tmp_path / layout, EXERCISE).entries if e.student == student]
        assert entry.origin == f"{name}/hw/900.py", layout
        said[layout] = [n.replace(name, "<zip>") for n in entry.notes]
        told = [t.en.replace(name, "<zip>") for t in entry.told]
        assert told == [f"Not judged: {n.removeprefix('left out ').replace(': ', ' (', 1)})" for n in said[layout]]
    assert all(notes == said["plain"] for notes in said.values()), said
    assert said["plain"] == [
        "left out <zip>/../evil.py: its path in the zip leads outside the zip (absolute, or ..): skipped for safety",
        "left out <zip>//etc/x.py: its path in the zip leads outside the zip (absolute, or ..): skipped for safety",
        "left out <zip>/hw/helper.py: another file of the submission: a submission is judged as one file",
    ]  # the macOS metadata is no one's work: left out without a word


def test_the_class_zips_own_traversal_members_go_to_skipped(tmp_path):
    archive = write_zip(tmp_path / "class.zip", {"alice.py": REFERENCE, "../../etc/evil.py": "X\n"})
    found = scan(archive, EXERCISE)
    assert [e.student for e in found.entries] == ["alice"]
    assert [(s.path, s.reason[:20]) for s in found.skipped] == [("../../etc/evil.py", "its path in the zip ")]
