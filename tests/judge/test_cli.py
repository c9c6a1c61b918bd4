"""The learner's command, `python practice/judge.py`, through a real subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_PROBLEMS

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
GOOD = "def add(a, b):\n    return a + b\n"


def practice(tmp_path, *args, stdin=None):
    env = {**os.environ, "PRACTICE_PROBLEMS_DIR": str(FIXTURE_PROBLEMS),
           "PRACTICE_SOLUTIONS_DIR": str(tmp_path / "solutions")}
    return subprocess.run([sys.executable, str(REPO / "practice" / "judge.py"), *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)


def write(tmp_path, name, content: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def test_json_prints_only_the_public_report_and_exits_0_when_accepted(tmp_path):
    result = practice(tmp_path, "900", write(tmp_path, "ok.py", GOOD), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert report["verdict"] == "accepted" and report["problem"] == "900"
    assert report["cases"][-1] == {**report["cases"][-1], "name": "hidden 1", "hidden": True, "message": ""}


def test_rejected_submission_exits_1_and_says_what_failed(tmp_path):
    result = practice(tmp_path, "900", write(tmp_path, "bad.py", "def add(a, b):\n    return a * b\n"))
    assert result.returncode == 1
    assert "wrong_answer" in result.stdout and "add 结果不对" in result.stdout
    assert "✗" in result.stdout


def test_public_flag_runs_only_public_tests(tmp_path):
    result = practice(tmp_path, "900", write(tmp_path, "ok.py", GOOD), "--json", "--public")
    report = json.loads(result.stdout)
    assert report["total"] == 2 and report["mode"] == "run"


def test_compile_error_exits_1(tmp_path):
    result = practice(tmp_path, "900", write(tmp_path, "syn.py", "def add(:\n"), "--json")
    assert result.returncode == 1 and json.loads(result.stdout)["verdict"] == "compile_error"


def test_first_run_creates_the_file_from_the_starter(tmp_path):
    result = practice(tmp_path, "900")
    created = tmp_path / "solutions" / "900.py"
    assert created.read_text() == (FIXTURE_PROBLEMS / "900-echo" / "starter.py").read_text()
    assert str(created) in result.stderr and result.returncode == 1
    listing = practice(tmp_path, "--list")
    assert "900" in listing.stdout and "wrong_answer" in listing.stdout


@pytest.mark.parametrize("args,content,match", [
    (["901"], None, "unknown problem"),
    (["900", "missing.py"], None, "no such file"),
    (["900", "empty.py"], b"", "empty"),
    (["900", "latin1.py"], "x = 'caf\xe9'\n".encode("latin-1"), "UTF-8"),
    (["900", "huge.py"], b"#" * 1_100_000, "limit"),
], ids=["unknown-problem", "missing-file", "empty-file", "not-utf8", "over-1MB"])
def test_bad_input_is_one_line_on_stderr_nothing_on_stdout_exit_2(tmp_path, args, content, match):
    if content is not None:
        write(tmp_path, args[1], content)
    result = practice(tmp_path, *args, "--json")
    assert result.returncode == 2
    assert result.stdout == ""
    assert match in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_list_shows_titles(tmp_path):
    result = practice(tmp_path, "--list")
    assert result.returncode == 0 and "测试用题" in result.stdout and "not started" in result.stdout
