"""A Gradescope export names each row by the student's latest submission id; an instructor's extensions and
adjustments may name the student by their SID, as Gradescope's roster does."""

from __future__ import annotations

from judge.batch.command import grade_options
from judge.batch.grade import EXIT_OK, grade_class
from judge.cli.subcommands import build_parser
from tests.batch.conftest import REFERENCE, WRONG, read_grades, write_tree
from tests.batch.test_lms_class import GS_METADATA


def test_extensions_and_adjustments_by_sid(tmp_path, fixture_judge, fixture_settings):
    write_tree(
        tmp_path,
        {
            "class/submission_metadata.yml": GS_METADATA,
            "class/submission_111/900.py": WRONG,
            "class/submission_222/900.py": REFERENCE,
            "class/submission_333/900.py": REFERENCE,
            "extensions.csv": "student,deadline\n1002,2026-03-05T12:00+00:00\n",  # Bob's SID
            "adjustments.csv": "student,points,reason\n1001,-2,code review\n",  # Alice's SID: her row is 333
        },
    )
    argv = ["grade", "900", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--points", "10",
            "--late-penalty", "10", "--deadline", "2026-03-01T23:59+00:00",
            "--extensions", str(tmp_path / "extensions.csv"),
            "--adjustments", str(tmp_path / "adjustments.csv")]  # fmt: skip
    with open(tmp_path / "log", "w", encoding="utf-8") as stream:
        status = grade_class(
            "900", tmp_path / "class", tmp_path / "out", fixture_settings, jobs=2, lang="en", judge=fixture_judge,
            stream=stream, options=grade_options(build_parser().parse_args(argv)),
        )  # fmt: skip
    assert status == EXIT_OK, (tmp_path / "log").read_text()
    rows = read_grades(tmp_path / "out")
    assert rows["222"]["late"] == "" and rows["222"]["deadline"].endswith("(extension)")  # handed in 2 March
    assert rows["333"]["late"] == "2d" and rows["333"]["points"] == "6.00"  # 10 - 20%, then -2
