"""`judge check` and `judge new`, as authors run them."""

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import FIXTURE_PROBLEMS

pytestmark = pytest.mark.slow


def judge_cmd(*args, problems_dir=None):
    env = dict(os.environ)
    if problems_dir is not None:
        env["PRACTICE_PROBLEMS_DIR"] = str(problems_dir)
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, env=env, timeout=1500
    )


def test_new_scaffolds_a_folder_that_passes_check(tmp_path):
    created = judge_cmd("new", "950", "demo-thing", problems_dir=tmp_path)
    assert created.returncode == 0, created.stderr
    assert (tmp_path / "950-demo-thing" / "problem.toml").is_file()
    checked = judge_cmd("check", "950", problems_dir=tmp_path)
    assert checked.returncode == 0, checked.stdout
    assert "starter is rejected" in checked.stdout and "all checks passed" in checked.stdout
    again = judge_cmd("new", "950", "other", problems_dir=tmp_path)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_check_fails_when_a_wrong_solution_is_accepted(tmp_path):
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", tmp_path / "900-echo")
    (tmp_path / "900-echo" / "solutions" / "wrong" / "actually_right.py").write_text(
        "# expect: wrong_answer\ndef add(a, b):\n    return a + b\n"
    )
    result = judge_cmd("check", "900", problems_dir=tmp_path)
    assert result.returncode == 1
    assert "FAIL" in result.stdout and "got accepted, want wrong_answer" in result.stdout


def test_check_all_checks_every_problem_of_the_folder(tmp_path):
    # The shipped problems pass every check of `judge check --all` in tests/problems (the same check_problem,
    # one case per file); here the command's --all path itself, over a folder of two problems.
    for number in ("900", "901"):
        shutil.copytree(FIXTURE_PROBLEMS / "900-echo", tmp_path / f"{number}-echo")
    toml = tmp_path / "901-echo" / "problem.toml"
    toml.write_text(toml.read_text().replace('id = "900"', 'id = "901"'))
    result = judge_cmd("check", "--all", problems_dir=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert result.stdout.count("reference is accepted") == 2 and "all checks passed" in result.stdout


def test_check_fails_a_problem_whose_feedback_misses_a_language_or_a_hint(tmp_path):
    folder = tmp_path / "900-echo"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", folder)
    hidden = folder / "tests" / "test_hidden.py"
    hidden.write_text(
        hidden.read_text().replace('@pytest.mark.hint("加法：随机输入", "addition on seeded random inputs")\n', "")
    )
    public = folder / "tests" / "test_public.py"
    public.write_text(public.read_text().replace('msg("add 结果不对", "add returns the wrong sum")', '"add 结果不对"'))
    result = judge_cmd("check", "900", problems_dir=tmp_path)
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    assert any("FAIL" in line and "every hidden test has a hint in zh and en" in line for line in lines)
    assert any("FAIL" in line and "wrong/subtracts.py: its report says what is wrong" in line for line in lines)
    assert "test_add[small] message: English side is not English" in result.stdout


def test_check_passes_the_fixture_with_hints_and_both_languages(tmp_path):
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", tmp_path / "900-echo")
    result = judge_cmd("check", "900", problems_dir=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "every hidden test has a hint in zh and en" in result.stdout
