"""The hint ladder (judge/problem/hints.py): problems' hints.toml files parse in both languages and cover their
checks, `judge check` names what is wrong with one, a failing case gets its check's hints (a hidden one under an
opaque key), and the terminal shows the first N of them with `--hint N`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.console import Console

from judge.cli.render import print_report
from judge.problem import hints
from judge.problem.folders import ProblemSet, load_problem
from judge.problem.selfcheck import hints_show_no_secret, ladder_gaps, leaked_by_hints, static_checks
from judge.report.catalog import say
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, Verdict
from judge.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "problems" / "900-echo"
PROBLEMS = ProblemSet(Settings().problems_dir)
CHECK = "hints.toml parses, in zh and en, for tests that exist"


@pytest.mark.parametrize("problem_id", ["100", "104"])
def test_the_exercises_hints_cover_every_check_in_both_languages(problem_id):
    problem = PROBLEMS.get(problem_id)
    ladder = hints.ProblemHints(problem).ladder
    assert set(ladder.checks) == set(hints.test_names(problem))
    assert all(1 <= len(rungs) <= hints.MAX_HINTS for rungs in ladder.checks.values())
    assert ladder_gaps(problem) == []


def _planted(tmp_path: Path, text: str):
    shutil.copytree(FIXTURE, tmp_path / "900-echo")
    (tmp_path / "900-echo" / "hints.toml").write_text(text, encoding="utf-8")
    return load_problem(tmp_path / "900-echo")


def _tests_of(tmp_path: Path) -> list[str]:
    return sorted(hints.test_names(load_problem(tmp_path / "900-echo")))


@pytest.mark.parametrize(
    "text,said",
    [
        ('[[test_nowhere]]\nzh = "提示"\nen = "a hint"\n', "test_nowhere: no such test in tests/"),
        ('[[{test}]]\nzh = "提示"\nen = "提示"\n', "English side is not English"),
        ('[[{test}]]\nzh = "提示"\n', "en: Field required"),
        ('[[{test}]]\nzh = ""\nen = "x"\n', "zh: String should have at least 1 character"),
        ('{test} = "flat"\n', "is not a list of"),
        ("[[{test}]]\nzh = 'a\nen = 'b'\n", "(at line 2, column 8)"),
        ('[[{test}]]\nzh = "a"\nen = "a"\n' * 4, "has 4 hints"),
    ],
)
def test_judge_check_names_what_is_wrong_with_a_hints_file(tmp_path, text, said):
    shutil.copytree(FIXTURE, tmp_path / "900-echo")
    first = _tests_of(tmp_path)[0]
    problem = _planted(tmp_path / "planted", text.replace("{test}", first))
    checks = {c.name: c for c in static_checks(problem)}
    assert not checks[CHECK].ok and said in checks[CHECK].detail, checks[CHECK].detail


def test_once_a_file_exists_every_test_needs_hints(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "900-echo")
    tests = _tests_of(tmp_path)
    one = f'[[{tests[0]}]]\nzh = "看看返回值"\nen = "look at what it returns"\n'
    gaps = ladder_gaps(_planted(tmp_path / "planted", one))
    assert gaps == [f"{name}: no hints" for name in tests[1:]]
    assert {c.name: c for c in static_checks(PROBLEMS.get("101"))}[CHECK].ok  # no file: nothing to prove


def test_a_failing_case_gets_its_checks_ladder_and_a_hidden_one_an_opaque_key():
    problem = PROBLEMS.get("100")
    cases = [
        CaseResult(name="test_rms_norm_gradcheck_float64", outcome=Outcome.failed),
        CaseResult(name="test_rms_norm_backward_matches_formula[float64-1d]", outcome=Outcome.failed, hidden=True),
        CaseResult(name="test_kv_write_opcheck", outcome=Outcome.passed),
        CaseResult(name="test_rms_norm_opcheck", outcome=Outcome.error, message=say("case.not_run")),
    ]
    hints.attach_hints(problem, cases)
    gradcheck, backward, passed, not_run = cases
    assert len(gradcheck.hints) == 3 and gradcheck.check == "test_rms_norm_gradcheck_float64"
    assert "tuple" in gradcheck.hints[2].en and "元组" in gradcheck.hints[2].zh
    assert backward.check.startswith("hidden-") and "backward" not in backward.check and len(backward.hints) == 3
    assert passed.hints == [] and not_run.hints == []  # passed, or never checked: no hints
    public = Report(problem="100", verdict=Verdict.wrong_answer, score=0, passed=1, total=4, cases=cases).public("zh")
    hidden = public.cases[1]
    assert hidden.name == "hidden 1" and hidden.hints == [h.zh for h in backward.hints]
    assert hidden.check == backward.check and "float64-1d" not in hidden.model_dump_json()


def test_a_broken_hints_file_gives_no_hints_and_no_fault(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "900-echo")
    problem = _planted(tmp_path / "planted", "not toml = = =\n")
    cases = [CaseResult(name=_tests_of(tmp_path)[0], outcome=Outcome.failed)]
    hints.attach_hints(problem, cases)
    assert cases[0].hints == [] and cases[0].check == ""


def test_a_hidden_cases_hints_must_not_spell_its_input(tmp_path):
    name = "test_rms_norm_eager_matches_formula"
    planted = CaseResult(name=f"{name}[float64-3d-eps0.25]", outcome=Outcome.passed, hidden=True)
    report = Report(problem="100", verdict=Verdict.accepted, score=1, passed=1, total=1, cases=[planted])
    assert leaked_by_hints(report, PROBLEMS.get("100")) == []
    shutil.copytree(PROBLEMS.get("100").root, tmp_path / "100-custom-op")
    (tmp_path / "100-custom-op" / "hints.toml").write_text(
        f'[[{name}]]\nzh = "看 float64-3d-eps0.25"\nen = "look at float64-3d-eps0.25"\n', encoding="utf-8"
    )
    leaky = load_problem(tmp_path / "100-custom-op")
    assert leaked_by_hints(report, leaky) == [f"{planted.name}: a hint names 'float64-3d-eps0.25'"]
    worded = report.model_copy(update={"cases": [planted.model_copy(update={"name": f"{name}[empty]"})]})
    assert leaked_by_hints(worded, leaky) == []  # a plain word ("empty") is what the case checks, not its input


def _printed(report: Report, lang, upto: int) -> str:
    console = Console(record=True, width=300, color_system=None)
    print_report(console, report.public(lang), "mine.py", upto)
    return console.export_text()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_terminal_shows_the_first_n_hints_of_each_failing_check_once(lang):
    problem = PROBLEMS.get("100")
    cases = [
        CaseResult(name=f"test_rms_norm_backward_matches_formula[{i}]", outcome=Outcome.failed, message=Text.same("m"))
        for i in ("a", "b")
    ] + [CaseResult(name="test_kv_write_opcheck", outcome=Outcome.failed, message=Text.same("other"))]
    hints.attach_hints(problem, cases)
    report = Report(problem="100", verdict=Verdict.wrong_answer, score=0, passed=0, total=3, cases=cases)
    ladder = hints.ProblemHints(problem).ladder.checks
    none = _printed(report, lang, 0)
    assert say("cli.hints_available", id="100").get(lang) in none
    assert ladder["test_kv_write_opcheck"][0].text().get(lang) not in none
    two = _printed(report, lang, 2)
    for check in ("test_rms_norm_backward_matches_formula", "test_kv_write_opcheck"):
        first, second, third = (h.text().get(lang) for h in ladder[check])
        assert two.count(first) == 1 and two.count(second) == 1 and third not in two
    assert say("cli.hint_line", n=2, of=3, text="").get(lang).strip() in two
    assert say("cli.hints_available", id="100").get(lang) not in two


def test_a_hint_that_repeats_a_solution_line_is_refused(tmp_path):
    shutil.copytree(PROBLEMS.get("104").root, tmp_path / "104-free-slots")
    folder = tmp_path / "104-free-slots"
    assert hints_show_no_secret(load_problem(folder)) == []
    line = "return torch.nonzero(~used).flatten()"
    assert line in (folder / "solutions" / "reference.py").read_text(encoding="utf-8")
    text = (folder / "hints.toml").read_text(encoding="utf-8")
    (folder / "hints.toml").write_text(text.replace("Take nonzero of ~used", line), encoding="utf-8")
    found = hints_show_no_secret(load_problem(folder))
    assert found and all("solutions/" in f or "conftest" in f for f in found) and any(line in f for f in found)
    name = "hints and Try examples repeat no line of a solution or hidden test"
    assert not {c.name: c for c in static_checks(load_problem(folder))}[name].ok
