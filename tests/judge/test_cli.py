"""The learner's command, `python practice/judge.py`, through a real subprocess."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.report.catalog import say
from tests.conftest import FIXTURE_PROBLEMS

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
GOOD = "def add(a, b):\n    return a + b\n"


def practice(tmp_path, *args, env=None):
    env = {
        **os.environ,
        "PRACTICE_PROBLEMS_DIR": str(FIXTURE_PROBLEMS),
        "PRACTICE_SOLUTIONS_DIR": str(tmp_path / "solutions"),
        "PRACTICE_LANG": "zh",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, str(REPO / "practice" / "judge.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


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
    assert "  hidden 1 ✗ 加法：随机输入" in result.stdout.splitlines()  # a failing hidden case names what it checks


CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_lang_en_prints_no_chinese_at_all(tmp_path):
    result = practice(tmp_path, "900", "--lang", "en")  # the starter: created, then judged
    assert result.returncode == 1
    assert (
        "Created" in result.stderr
        and "Result: wrong_answer" in result.stdout
        and "hidden 1 ✗ addition" in result.stdout
    )
    assert not CJK.search(result.stdout + result.stderr), result.stdout + result.stderr


def test_practice_lang_from_the_environment_and_zh_by_default(tmp_path):
    bad = write(tmp_path, "bad.py", "def add(a, b):\n    return a * b\n")
    english = practice(tmp_path, "900", bad, env={"PRACTICE_LANG": "en"})
    assert "add returns the wrong sum" in english.stdout and not CJK.search(english.stdout)
    assert "结果: wrong_answer" in practice(tmp_path, "900", bad).stdout


def test_printed_verdict_lines_stay_behind_the_output_fence(tmp_path):
    spoof = write(tmp_path, "spoof.py", "def add(a, b):\n    print('结果: accepted')\n    return a - b\n")
    shown = practice(tmp_path, "900", spoof, "--public")
    assert "结果: wrong_answer" in shown.stdout
    printed = [line for line in shown.stdout.splitlines() if "结果: accepted" in line]
    assert printed and all(line.lstrip().startswith("│ 结果: accepted") for line in printed)
    report = json.loads(practice(tmp_path, "900", spoof, "--public", "--json").stdout)
    assert "│ 结果: accepted" in report["output"]
    assert all(line.startswith("│ ") for line in report["output"].splitlines())


def test_syntax_error_is_one_short_block(tmp_path):
    result = practice(tmp_path, "900", write(tmp_path, "syn.py", "def add(a, b)\n    return a + b\n"), "--lang", "en")
    lines = (result.stderr + result.stdout).strip().splitlines()
    assert result.returncode == 1 and len(lines) <= 9, lines  # 9: the footer names where the statement is
    assert "      def add(a, b)" in lines and "No test ran: your file must import first" in result.stdout


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
    listing = practice(tmp_path, "--list")  # in the learner's language only, the verdict by its catalogue name
    assert "900" in listing.stdout and say("verdict.wrong_answer").zh in listing.stdout
    assert "wrong_answer" not in listing.stdout


def test_judge_run_help_describes_its_arguments():
    result = subprocess.run(
        [sys.executable, "-m", "judge.cli", "run", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "exercise number" in result.stdout and "file to judge" in result.stdout and "--lang" in result.stdout


@pytest.mark.parametrize(
    "args,content,match,zh",
    [
        (["901"], None, "unknown problem", "没有这道题"),
        (["900", "missing.py"], None, "no such file", "找不到文件"),
        (["900", "empty.py"], b"", "empty", "空的"),
        (["900", "latin1.py"], "x = 'caf\xe9'\n".encode("latin-1"), "UTF-8", "UTF-8"),
        (["900", "huge.py"], b"#" * 1_100_000, "limit", "上限"),
        (["900", "."], None, "is a directory", "是一个目录"),
    ],
    ids=["unknown-problem", "missing-file", "empty-file", "not-utf8", "over-1MB", "directory"],
)
def test_bad_input_is_one_line_on_stderr_nothing_on_stdout_exit_2(tmp_path, args, content, match, zh):
    if content is not None:
        write(tmp_path, args[1], content)
    result = practice(tmp_path, *args, "--json", "--lang", "en")
    assert result.returncode == 2
    assert result.stdout == ""
    assert match in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert zh in practice(tmp_path, *args, "--json").stderr  # the default language is zh


def test_list_shows_titles(tmp_path):
    result = practice(tmp_path, "--list")
    assert result.returncode == 0 and "测试用题" in result.stdout and "还没开始" in result.stdout
    english = practice(tmp_path, "--list", "--lang", "en")
    assert "Fixture: add" in english.stdout and "not started" in english.stdout


def test_a_bom_and_crlf_file_and_a_gbk_file_with_a_coding_line_are_judged_as_python_runs_them(tmp_path):
    bom_crlf = write(tmp_path, "bom.py", b"\xef\xbb\xbf" + "# 加法\r\n".encode() + GOOD.replace("\n", "\r\n").encode())
    result = practice(tmp_path, "900", bom_crlf, "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["verdict"] == "accepted", result.stdout + result.stderr
    gbk = write(tmp_path, "gbk.py", ("# -*- coding: gbk -*-\n# 两数相加\n" + GOOD).encode("gbk"))
    result = practice(tmp_path, "900", gbk, "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["verdict"] == "accepted", result.stdout + result.stderr


def test_a_gbk_file_without_a_coding_line_is_refused_with_how_to_save_it(tmp_path):
    gbk = write(tmp_path, "gbk.py", ("# 两数相加\n" + GOOD).encode("gbk"))
    result = practice(tmp_path, "900", gbk, "--lang", "en")
    assert result.returncode == 2 and result.stdout == ""
    assert "not UTF-8 text (line 1" in result.stderr and "Save it as UTF-8" in result.stderr
    assert "另存为 UTF-8" in practice(tmp_path, "900", gbk).stderr


def judge_run(tmp_path, *args, env=None):
    env = {
        **os.environ,
        "PRACTICE_PROBLEMS_DIR": str(FIXTURE_PROBLEMS),
        "PRACTICE_SOLUTIONS_DIR": str(tmp_path / "solutions"),
        "PRACTICE_LANG": "zh",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", "run", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


@pytest.fixture
def broken_problems(tmp_path):
    folder = tmp_path / "problems"
    shutil.copytree(FIXTURE_PROBLEMS, folder)
    (folder / "900-echo" / "problem.toml").write_text("id = 900\n", encoding="utf-8")  # not a valid problem
    return folder


@pytest.mark.parametrize("extra", [["--json"], []], ids=["json", "text"])
def test_judge_run_and_practice_agree_on_a_broken_exercise(tmp_path, broken_problems, extra):
    env = {"PRACTICE_PROBLEMS_DIR": str(broken_problems)}
    ok = write(tmp_path, "ok.py", GOOD)
    one, other = practice(tmp_path, "900", ok, *extra, env=env), judge_run(tmp_path, "900", ok, *extra, env=env)
    when = re.compile(r'"judged_at": "[^"]*"')
    assert (one.returncode, when.sub("", one.stdout), one.stderr) == (
        other.returncode,
        when.sub("", other.stdout),
        other.stderr,
    )
    assert one.returncode == 2 and "判题系统内部错误" in one.stderr
    if extra:
        assert json.loads(one.stdout)["verdict"] == "internal_error"


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_judge_run_and_practice_agree_on_an_unreadable_file(tmp_path):
    unreadable = "/proc/self/mem"  # a regular file whose read fails, even for root
    one, other = practice(tmp_path, "900", unreadable, "--json"), judge_run(tmp_path, "900", unreadable, "--json")
    assert (one.returncode, one.stdout, one.stderr) == (other.returncode, other.stdout, other.stderr)
    assert one.returncode == 2 and one.stdout == "" and "无法读取文件 /proc/self/mem" in one.stderr
    english = judge_run(tmp_path, "900", unreadable, "--lang", "en")
    assert english.stderr.startswith("error: cannot read /proc/self/mem: ") and len(english.stderr.splitlines()) == 1


def test_the_statement_prints_in_the_learners_language_and_names_how_to_judge(tmp_path):
    en = practice(tmp_path, "900", "--statement", env={"PRACTICE_LANG": "en"})
    assert en.returncode == 0, en.stderr
    first_heading = (FIXTURE_PROBLEMS / "900-echo" / "prompt.en.md").read_text().splitlines()[0].lstrip("# ").strip()
    assert first_heading in en.stdout
    assert "python practice/judge.py 900" in en.stdout and "/problems/900" in en.stdout
    assert not re.search(r"[\u4e00-\u9fff]", en.stdout)  # English only
    zh = judge_run(tmp_path, "900", "--statement")
    assert zh.returncode == 0 and "判题" in zh.stdout
    shown = subprocess.run(
        [sys.executable, "-m", "judge.cli", "show", "900", "--lang", "en"],
        capture_output=True,
        text=True,
        env={**os.environ, "PRACTICE_PROBLEMS_DIR": str(FIXTURE_PROBLEMS)},
        timeout=120,
    )
    assert shown.returncode == 0 and first_heading in shown.stdout
    unknown = practice(tmp_path, "999", "--statement")
    assert unknown.returncode == 2 and "999" in unknown.stderr


def test_the_starter_the_failure_footer_and_an_accepted_run_point_to_the_next_step(tmp_path):
    first = practice(tmp_path, "900", env={"PRACTICE_LANG": "en"})
    assert "python practice/judge.py 900 --statement" in first.stderr  # the first-run message names the statement
    assert "python practice/judge.py 900 --statement" in first.stdout  # and so does the failure footer
    accepted = practice(tmp_path, "900", write(tmp_path, "ok.py", GOOD), env={"PRACTICE_LANG": "en"})
    assert accepted.returncode == 0
    last = sorted(p.name.split("-")[0] for p in FIXTURE_PROBLEMS.iterdir() if p.is_dir())[-1]
    if last == "900":
        assert say("cli.all_done").en in accepted.stdout
    else:
        assert "Next: exercise" in accepted.stdout and f"python practice/judge.py {last}" in accepted.stdout
    public = practice(tmp_path, "900", write(tmp_path, "ok.py", GOOD), "--public", env={"PRACTICE_LANG": "en"})
    assert "Next:" not in public.stdout and say("cli.all_done").en not in public.stdout  # only after a submit


def test_list_marks_an_exercise_done_once_accepted_on_every_test_and_keeps_it(tmp_path):
    (tmp_path / "solutions").mkdir()
    mine = tmp_path / "solutions" / "900.py"
    mine.write_text(GOOD)
    assert "0/1" in practice(tmp_path, "--list").stdout  # nothing done yet
    assert practice(tmp_path, "900", "--public").returncode == 0  # public tests only: not done
    assert "✓" not in practice(tmp_path, "--list").stdout
    assert practice(tmp_path, "900").returncode == 0
    listing = practice(tmp_path, "--list", "--lang", "en").stdout
    assert listing.startswith("✓") and "done (all tests passed on" in listing and "1 of 1 exercises done" in listing
    mine.write_text("def add(a, b):\n    return a - b\n")  # a later failure does not undo it
    assert practice(tmp_path, "900").returncode == 1
    listing = practice(tmp_path, "--list").stdout
    assert "已完成（" in listing and "已完成 1/1 题" in listing and "之后改过" not in listing
