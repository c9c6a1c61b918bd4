"""The `judge grade` / `judge gradescope` command lines: help stays instant, usage errors exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli.subcommands import dispatch
from tests.batch.conftest import FIXTURE, REFERENCE, write_tree

REPO = Path(__file__).resolve().parents[2]


def test_help_lists_both_commands_without_importing_torch():
    code = (
        "import sys; from judge.cli.subcommands import build_parser; p = build_parser(); "
        "p.parse_args(['grade', '100', 'x', '--out', 'y']); print('torch' in sys.modules, 'copydetect' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize(
    "argv",
    [
        ["grade", "900", "class"],
        ["grade", "900", "class", "--out", "o", "--jobs", "0"],
        ["grade", "900", "class", "--out", "o", "--lang", "fr"],
        ["grade", "900", "class", "--out", "o", "--deadline", "next friday"],
        ["grade", "900", "class", "--out", "o", "--late-penalty", "150"],
        ["grade", "900", "class", "--out", "o", "--points", "0"],
        ["grade", "900", "class", "--out", "o", "--lms", "blackboard"],
        ["gradescope", "900"],
    ],
)
def test_bad_arguments_exit_2(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        dispatch(argv)
    assert exit_.value.code == 2


def test_missing_submissions_or_unknown_problem_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PRACTICE_PROBLEMS_DIR", str(FIXTURE.parent))
    assert dispatch(["grade", "900", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    write_tree(tmp_path / "class", {"a.py": REFERENCE})
    assert dispatch(["grade", "999", str(tmp_path / "class"), "--out", str(tmp_path / "o")]) == 2


def test_gradescope_command_writes_the_zip(tmp_path):
    env = {**os.environ, "PRACTICE_PROBLEMS_DIR": str(FIXTURE.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "gradescope", "900", "--out", str(tmp_path / "ag.zip")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and (tmp_path / "ag.zip").stat().st_size > 10_000


def test_grade_options_from_the_command_line():
    from judge.batch.command import grade_options
    from judge.cli.subcommands import build_parser

    args = build_parser().parse_args(
        ["grade", "900", "c", "--out", "o", "--points", "10", "--deadline", "2026-03-01", "--late-penalty", "5",
         "--lms", "canvas", "--lms", "moodle", "--lms-column", "HW 4"]
    )  # fmt: skip
    options = grade_options(args)
    assert options.points == 10 and options.late_penalty == 5 and options.lms == ["canvas", "moodle"]
    assert options.deadline.isoformat() == "2026-03-01T23:59:59+00:00" and options.lms_column == "HW 4"
    bare = grade_options(build_parser().parse_args(["grade", "900", "c", "--out", "o"]))
    assert bare.model_dump(exclude_unset=True) == {}  # what a run leaves unsaid comes from DIR's earlier run
