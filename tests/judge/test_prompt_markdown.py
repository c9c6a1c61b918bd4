"""Statements render whole: `judge check` renders each prompt as the page does and names what would break."""

import os
import shutil
import subprocess
import sys

import pytest

from judge.problem.folders import load_problem
from judge.problem.selfcheck import static_checks
from judge.problem.statement import render, unrendered
from tests.conftest import FIXTURE_PROBLEMS

TABLE = "| Check | How |\n| --- | --- |\n"
BROKEN_ROW = "| values | compared with `|actual − expected| ≤ atol + rtol·|expected|`: 1e-5 / 1e-5 |\n"


def test_a_pipe_inside_backticks_is_a_broken_row_and_its_escape_renders_whole():
    found = unrendered(TABLE + BROKEN_ROW)
    assert any("table row with 6 cells under a header of 2" in f for f in found), found
    assert any("code span left open" in f for f in found), found
    assert "1e-5" not in render(TABLE + BROKEN_ROW)  # what the learner lost
    fixed = TABLE + BROKEN_ROW.replace("`|actual − expected| ≤ atol + rtol·|expected|`", r"`\|a − e\| ≤ atol`")
    assert unrendered(fixed) == []
    assert "<code>|a − e| ≤ atol</code>: 1e-5 / 1e-5" in render(fixed)


def test_a_row_with_fewer_cells_than_its_header():
    assert unrendered(TABLE + "| only one |\n") == ["line 3: a table row with 1 cells under a header of 2"]


def test_open_code_span_and_open_fence():
    assert unrendered("a `span that never closes\n") == ["line 1: a code span left open (an unmatched backtick)"]
    assert unrendered("text\n\n```python\nx = 1\n") == ["line 3: a code fence (```) that is never closed"]
    assert unrendered("text\n\n```python\nx = 1\n```\n\n~~~\ny\n~~~\n") == []


def test_the_page_renders_with_the_same_configuration():
    from web import markdown

    assert markdown.render is render


def _planted(tmp_path):
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", tmp_path / "900-echo")
    prompt = tmp_path / "900-echo" / "prompt.en.md"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "\n" + TABLE + BROKEN_ROW, encoding="utf-8")
    return tmp_path / "900-echo"


def test_check_names_the_broken_table_of_a_planted_prompt(tmp_path):
    checks = {c.name: c for c in static_checks(load_problem(_planted(tmp_path)))}
    assert checks["prompt.zh.md renders whole (as the page renders it)"].ok
    broken = checks["prompt.en.md renders whole (as the page renders it)"]
    assert not broken.ok and "table row with 6 cells under a header of 2" in broken.detail


@pytest.mark.slow
def test_judge_check_all_fails_on_a_planted_broken_table(tmp_path):
    _planted(tmp_path)
    env = {**os.environ, "PRACTICE_PROBLEMS_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "judge.cli", "check", "--all"], capture_output=True, text=True, env=env, timeout=900
    )
    assert result.returncode == 1, result.stdout[-2000:]
    assert "FAIL" in result.stdout and "prompt.en.md renders whole" in result.stdout
    assert "table row with 6 cells under a header of 2" in result.stdout
