"""Your own input (judge try, judge/grading/trying.py): the input is read without running anything and refused in both
languages when it cannot be; a problem's try.toml is proven by `judge check`; end to end, the learner's operator and
the reference run in workers of their own on the input, the outputs are compared and traced, and `judge try` prints
it in the terminal, in Chinese and English."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.problem.folders import ProblemSet, load_problem
from judge.problem.selfcheck import static_checks
from judge.problem.trying import BadInput, NoTry, ProblemTry, builder_source, example_problems, parse_input
from judge.report.catalog import MESSAGES, say
from judge.report.trying import TryResult

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ProblemSet(ROOT / "problems")
OPS = ProblemTry(PROBLEMS.get("100")).ops
WRONG = ROOT / "problems" / "100-custom-op" / "solutions" / "wrong"
RMS = """op = "rms_norm"
[args]
x = { shape = [2, 8], dtype = "float32", fill = "randn", seed = 3 }
weight = { expr = "torch.linspace(0.5, 2.0, 8)" }
eps = 0.5
"""


@pytest.mark.parametrize(
    "text,said",
    [
        ("op = ", "try.not_toml"),
        ('op = "nope"\n[args]\n', "try.unknown_op"),
        ('op = "rms_norm"\n[args]\nx = 1\n', "try.args"),
        (RMS.replace("eps = 0.5", "eps = 0.5\nextra = 1"), "try.args"),
        (RMS.replace('fill = "randn"', 'fill = "randn", values = [1]'), "try.bad_field"),
        (RMS.replace('dtype = "float32", fill = "randn"', 'dtype = "int64", fill = "randn"'), "try.bad_field"),
        (RMS.replace("shape = [2, 8]", "shape = [4096, 4096]"), "try.bad_field"),
        (RMS.replace("torch.linspace(0.5, 2.0, 8)", "import os"), "try.bad_expr"),
        (RMS.replace("torch.linspace(0.5, 2.0, 8)", "1)\\nimport os\\n(2"), "try.bad_expr"),
        ("#" * 20000, "try.too_big"),
    ],
)
def test_an_input_that_cannot_be_read_is_refused_in_both_languages_before_anything_runs(text, said):
    with pytest.raises(BadInput) as caught:
        parse_input(text, OPS)
    assert _says(said, caught.value.text.zh, "zh") and _says(said, caught.value.text.en, "en"), caught.value.text
    assert caught.value.http_status == 422


def _says(msg_id: str, text: str, lang: str) -> bool:
    """`text` is the catalogue's `msg_id` with some fields filled in."""
    template = MESSAGES[msg_id][0 if lang == "zh" else 1]
    pattern = ".*".join(re.escape(part) for part in re.split(r"\{\w+(?::[^}]*)?\}", template))
    return re.fullmatch(pattern, text, re.S) is not None


def test_the_input_becomes_a_module_whose_lines_name_their_argument():
    _, op, parsed = parse_input(RMS, OPS)
    source, owners = builder_source(op, parsed)
    compile(source, "try-input.py", "exec")  # a module: only a sandboxed worker imports it
    weight_lines = [n for n, name in owners.items() if name == "weight"]
    assert "torch.linspace(0.5, 2.0, 8)" in "\n".join(source.splitlines()[weight_lines[0] - 1 : weight_lines[-1]])
    assert "generator=_gen(3)" in source and "ARGS['eps'] = 0.5" in source


def test_an_exercise_without_try_says_so():
    with pytest.raises(NoTry) as caught:
        ProblemTry(PROBLEMS.get("101")).require()
    assert "101" in caught.value.text.zh and "try.toml" in caught.value.text.en


def test_judge_check_proves_a_try_file(tmp_path):
    shutil.copytree(PROBLEMS.get("104").root, tmp_path / "104-free-slots")
    folder = tmp_path / "104-free-slots"
    name = "try.toml names probes that exist, and its examples read"
    assert {c.name: c for c in static_checks(load_problem(folder))}[name].ok
    text = (folder / "try.toml").read_text(encoding="utf-8")
    (folder / "try.toml").write_text(text.replace('probe = "eager"', 'probe = "no_such_probe"'), encoding="utf-8")
    assert example_problems(load_problem(folder)) == ["free_slots: no probe no_such_probe in tests/probes.py"]
    (folder / "try.toml").write_text(text.replace('dtype = "bool"', 'dtype = "boolean"'), encoding="utf-8")
    assert "its example does not read" in example_problems(load_problem(folder))[0]
    assert not {c.name: c for c in static_checks(load_problem(folder))}[name].ok


@pytest.fixture(scope="module")
def judge():
    from judge.service import Judge

    with Judge() as warm:
        yield warm


def _tried(judge, source_path: Path, text: str, problem: str = "100") -> TryResult:
    return judge.try_input(problem, source_path.read_text(encoding="utf-8"), text)


@pytest.mark.slow
def test_a_wrong_operator_differs_from_the_reference_and_its_trace_names_the_step(judge):
    result = _tried(judge, WRONG / "rms_ignores_eps.py", RMS)
    assert result.status == "differs" and [d.name for d in result.differences if not d.same] == ["out"]
    out = next(d for d in result.differences if d.name == "out")
    assert "16" in out.message.en and out.diff.startswith("tensor(") and out.message.zh.startswith("数值不对")
    assert [v.name for v in result.input] == ["x", "weight", "eps"] and "0.5000" in result.input[1].text
    assert result.op_trace is not None and result.op_trace.first_difference == 2
    assert "0.5" in result.op_trace.summary().en and "1e-06" in result.op_trace.summary().zh
    reference = _tried(judge, ROOT / "problems" / "100-custom-op" / "solutions" / "reference.py", RMS)
    assert reference.status == "same" and all(d.same for d in reference.differences)
    assert reference.reference == result.reference  # the reference on the same input: the same output


@pytest.mark.slow
@pytest.mark.parametrize(
    "text,source,status,said",
    [
        (
            RMS.replace("torch.linspace(0.5, 2.0, 8)", "torch.ones(8) + nowhere"),
            "rms_ignores_eps.py",
            "input_error",
            "NameError",
        ),
        (RMS.replace("shape = [2, 8]", "shape = [2, 7]"), "rms_ignores_eps.py", "reference_raised", "RuntimeError"),
        (RMS, "rms_returns_float32_for_bf16.py", "same", ""),
        (RMS, "registration_error_at_import.py", "import_error", ""),
    ],
)
def test_what_a_try_says_when_it_cannot_compare(judge, text, source, status, said):
    result = _tried(judge, WRONG / source, text)
    assert result.status == status, result
    assert said in result.message.en and said in result.message.zh
    if status == "reference_raised":  # where the reference failed is not shown, only what
        assert "reference.py" not in result.message.en and result.reference == []


def _reference_with(tmp_path: Path, lines: str) -> tuple[Path, str]:
    """The reference with `lines` run first in rms_norm's body, as a learner's file; and the reference's source."""
    path = tmp_path / "100.py"
    source = (ROOT / "problems" / "100-custom-op" / "solutions" / "reference.py").read_text(encoding="utf-8")
    path.write_text(source.replace('    """x * rsqrt', lines + '    """x * rsqrt'), "utf-8")
    return path, source


@pytest.mark.slow
def test_the_learners_line_is_named_when_their_operator_raises(judge, tmp_path):
    raising, source = _reference_with(tmp_path, '    raise ValueError("mine")\n')
    result = _tried(judge, raising, RMS)
    line = source.replace('    """x * rsqrt', "\x00").split("\x00")[0].count("\n") + 1
    assert result.status == "raised" and result.line == line and "ValueError: mine" in result.message.en


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_judge_try_in_the_terminal(tmp_path, lang):
    env = {**os.environ, "PRACTICE_SOLUTIONS_DIR": str(tmp_path / "solutions"), "PRACTICE_DAEMON": "0"}
    (tmp_path / "in.toml").write_text(
        'op = "free_slots"\n[args]\nused = { values = [true, false, true] , dtype = "bool" }\n'
    )
    wrong = ROOT / "problems" / "104-free-slots" / "solutions" / "wrong" / "returns_int32.py"
    judge = [sys.executable, "-m", "judge.cli", "try", "104"]

    def judge_try(*args: str) -> subprocess.CompletedProcess[str]:
        command = [*judge, str(tmp_path / "in.toml"), "--code", str(wrong), "--lang", lang, *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)

    as_json = judge_try("--json")
    public = json.loads(as_json.stdout)
    assert public["status"] == "differs" and public["lang"] == lang and public["op_trace"]["first_difference"] == 4
    out = next(d for d in public["differences"] if d["name"] == "out")
    assert not out["same"] and "int32" in out["message"] and "int64" in out["message"]
    shown = judge_try()
    assert shown.returncode == 1, shown.stderr
    assert say("try.title", id="104", op="free_slots").get(lang) in shown.stdout
    assert public["message"] in shown.stdout and out["message"] in shown.stdout
    assert say("optrace.heading").get(lang) in shown.stdout
    example = subprocess.run([*judge, "--lang", lang], capture_output=True, text=True, env=env, timeout=60)
    assert example.returncode == 0 and 'op = "free_slots"' in example.stdout
    assert say("try.example", op="free_slots", args="used", id="104").get(lang) in example.stdout


@pytest.mark.slow
def test_code_that_exits_without_answering_is_said_so_not_blamed_on_the_judge(judge, tmp_path):
    exiting, _ = _reference_with(tmp_path, "    import os\n    os._exit(0)\n")
    result = _tried(judge, exiting, RMS)
    assert result.status == "limit" and result.message == say("try.crashed", code=0)
