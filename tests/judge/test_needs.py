"""An exercise that needs a package this judge lacks (107 without Triton) is listed as needing it and refused with
which extra to install, before anything is judged (not a compile error of the learner's file)."""

import os
import shutil
import subprocess
import sys

import pytest

from judge.errors import CannotJudgeHere
from judge.problem.folders import load_problem, missing_needs, require_needs
from judge.service import Judge
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS

MISSING = "no_such_package_for_the_judge"


def needing(tmp_path, package=MISSING):
    root = tmp_path / "900-echo"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", root)
    toml = root / "problem.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("[title]", f'needs = ["{package}"]\n[title]'))
    return root


def test_missing_needs_names_what_this_python_cannot_import(tmp_path):
    assert missing_needs(load_problem(needing(tmp_path))) == [MISSING]
    assert missing_needs(load_problem(needing(tmp_path / "b", "json"))) == []


def test_the_refusal_says_which_extra_to_install_and_a_server_says_it_cannot_judge(tmp_path):
    problem = load_problem(needing(tmp_path))
    with pytest.raises(CannotJudgeHere) as local:
        require_needs(problem)
    assert local.value.http_status == 409
    assert local.value.text.en == (
        f"exercise 900 needs {MISSING}, which this judge does not have installed: pip install -e '.[{MISSING}]'"
    )
    assert f"pip install -e '.[{MISSING}]'" in local.value.text.zh
    with pytest.raises(CannotJudgeHere) as server:
        require_needs(problem, on_server=True)
    assert server.value.text.en.startswith(f"this judge server does not have {MISSING} installed")


def test_grading_refuses_before_any_worker_starts(tmp_path):
    needing(tmp_path)
    with Judge(Settings(problems_dir=tmp_path)) as judge:
        with pytest.raises(CannotJudgeHere):
            judge.grade("900", "def add(a, b):\n    return a + b\n", "run")
        assert judge._zygotes is None  # refused before the warm parents were even started


def test_the_list_says_the_exercise_needs_the_package_and_how_to_install_it(tmp_path):
    needing(tmp_path)
    env = {"PRACTICE_PROBLEMS_DIR": str(tmp_path), "PRACTICE_SOLUTIONS_DIR": str(tmp_path / "mine")}
    listed = subprocess.run(
        [sys.executable, "practice/judge.py", "--list", "--lang", "en"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert f"needs {MISSING} (not installed): pip install -e '.[{MISSING}]'" in listed.stdout
