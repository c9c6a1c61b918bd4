"""`judge check`: prove a problem folder sound — statements, starter, reference, valid and wrong solutions."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from judge.errors import ProblemInvalid
from judge.problem import hints as hint_files
from judge.problem.folders import Problem
from judge.problem.probe_rules import check_observing_file, check_probes_file
from judge.problem.statement import unrendered
from judge.problem.trying import FILE as TRY_FILE
from judge.problem.trying import example_problems
from judge.report.i18n import LANGS, Text
from judge.report.models import Outcome, Report, Verdict

REQUIRED_FILES = (
    "prompt.zh.md",
    "prompt.en.md",
    "starter.py",
    "tests/probes.py",
    "tests/test_public.py",
    "tests/test_hidden.py",
    "solutions/reference.py",
)
# judge.problem.probe_rules, each as (the check's name, the rule, how to mend what it finds).
PROBE_RULES = (
    (
        "probes observe, the checker decides (no opcheck, gradcheck, torch.testing, allclose or equal in probes.py)",
        check_probes_file,
        " — compare in conftest.py instead (docs/authoring.en.md)",
    ),
    (
        "probes read tensors only through the worker's accessors (no .dtype, .shape, isinstance(...) in probes.py)",
        check_observing_file,
        " — read tensors through judge.worker.tensors (docs/authoring.en.md)",
    ),
)
NOT_A_STARTER_VERDICT = (Verdict.accepted, Verdict.compile_error, Verdict.internal_error)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")  # an "English" text holding these is not


@dataclass
class Check:
    name: str
    ok: bool
    seconds: float
    detail: str = ""
    report: Report | None = None


@dataclass
class SolutionCase:
    """One file of a problem and the verdict it must (or must not) get."""

    label: str
    path: Path
    expect: Verdict | None  # None: the starter, which must import and must not be accepted

    def judge(self, grade: Callable[[str, str], Report], problem: Problem) -> Check:
        started = time.monotonic()
        source = self.path.read_text(encoding="utf-8")
        report = grade(problem.id, source)
        seconds = time.monotonic() - started
        if self.expect is None:
            ok = report.verdict not in NOT_A_STARTER_VERDICT
            want = "not accepted, and importable"
        else:
            ok = report.verdict == self.expect
            want = self.expect.value
        detail = "" if ok else f"got {report.verdict.value}, want {want}: {_failures(report)}"
        unsaid = [text for text in expected_messages(source) if not _says(report, text)]
        if ok and unsaid:
            ok, detail = False, f"no failing case says {unsaid[0]!r}: {_failures(report)}"
        return Check(self.label, ok, seconds, detail, report)


EXPECT_MESSAGE = re.compile(r"^# expect-message: (.+)$", re.MULTILINE)


def expected_messages(source: str) -> list[str]:
    """What a wrong solution's report must say: `# expect-message: TEXT` lines (English, a part of one failing
    case's message), so the self-test proves the mistake is named, not only that the verdict is right."""
    return [m.group(1).strip() for m in EXPECT_MESSAGE.finditer(source)]


def _says(report: Report, text: str) -> bool:
    return any(text in c.message.en for c in report.cases if c.outcome.value != "passed")


def _failures(report: Report) -> str:
    bad = [f"{c.name}: {c.message.en}" for c in report.cases if c.outcome.value != "passed"][:3]
    return "; ".join(bad) or report.message.en or report.detail[:300]


def solution_cases(problem: Problem) -> list[SolutionCase]:
    cases = [
        SolutionCase("starter is rejected", problem.starter_path, None),
        SolutionCase("reference is accepted", problem.reference_path, Verdict.accepted),
    ]
    cases += [SolutionCase(f"valid/{p.name} is accepted", p, Verdict.accepted) for p in problem.valid_solutions()]
    cases += [SolutionCase(f"wrong/{p.name} gets {v.value}", p, v) for p, v in problem.wrong_solutions()]
    return cases


def missing_language(text: Text) -> str:
    """'' when text reads in both languages; else which is missing (English holding CJK counts as missing)."""
    if not text.zh.strip():
        return "no zh"
    if not text.en.strip() or CJK.search(text.en):
        return "no English" if not text.en.strip() else f"English side is not English: {text.en[:60]!r}"
    return ""


def feedback_gaps(report: Report) -> list[str]:
    """What a learner reading this (not accepted) report in zh or en would miss: a failing case's message or
    hint in one language only, or no failing case that says anything (a compile error's summary says it)."""
    gaps = [
        f"{case.name} {field}: {missing}"
        for case in report.cases
        if case.outcome != Outcome.passed
        for field in ("message", "hint")
        if getattr(case, field)
        for missing in [missing_language(getattr(case, field))]
        if missing
    ]
    if report.verdict == Verdict.compile_error:
        missing = missing_language(report.message)
        return gaps + ([f"summary: {missing}"] if missing else [])
    for lang in LANGS:
        public = report.public(lang)
        if not any(c.outcome != Outcome.passed and (c.message.strip() or c.hint.strip()) for c in public.cases):
            gaps.append(f"the {lang} public report has no failing case with a message or a hint")
    return gaps


def hint_gaps(report: Report) -> list[str]:
    """Hidden cases of a full (submit) report without an author's hint in both languages."""
    return [
        f"{case.name}: hint {missing_language(case.hint) or 'missing'}"
        for case in report.cases
        if case.hidden and missing_language(case.hint)
    ]


def ladder_gaps(problem: Problem) -> list[str]:
    """What is wrong with the problem's hints file (judge.problem.hints): it does not parse, a hint misses a
    language, a key names no test, or (where the file exists) a test has no hints."""
    try:
        ladder = hint_files.load(problem.root / hint_files.FILE)
    except ProblemInvalid as exc:
        return [exc.message]
    if not ladder.checks:
        return []
    tests = hint_files.test_names(problem)
    gaps = [f"{name}: no such test in tests/" for name in ladder.checks if name not in tests]
    gaps += [f"{name}: no hints" for name in tests if name not in ladder.checks]
    for name, rungs in ladder.checks.items():
        said = [(n, missing_language(hint.text())) for n, hint in enumerate(rungs, 1)]
        gaps += [f"{name} hint {n}: {missing}" for n, missing in said if missing]
    return gaps


def leaked_by_hints(report: Report, problem: Problem) -> list[str]:
    """Hidden cases whose hints name their own parametrize id (the reference's full report has the names) where the
    id spells an input (`float64-3d-eps0.25`, `random-257`: digits or joined words): a hidden check's hints say
    what it checks, never which input."""
    ladder = hint_files.ProblemHints(problem)
    try:
        ladder.ladder  # noqa: B018 - a file that does not parse has nothing to leak (its own check fails)
    except ProblemInvalid:
        return []
    leaks = []
    for case in report.cases:
        ident = case.name[len(hint_files.check_name(case.name)) :].strip("[]")
        spelled = bool(re.search(r"[0-9-]", ident))
        if case.hidden and spelled and any(ident in h.zh or ident in h.en for h in ladder.for_case(case.name)):
            leaks.append(f"{case.name}: a hint names {ident!r}")
    return leaks


SECRET_LINE = 30  # characters: a line this long from a solution or a hidden test is the author's, not a hint's


def hints_show_no_secret(problem: Problem) -> list[str]:
    """Hints (and Try's examples) are served to learners, so none may repeat a line of a solution, a hidden test or
    the conftest that no public file (starter, public tests, probes, statements) shows already: the near-answer
    is near, not the answer (the web test tests/web/test_no_leaks.py holds every route to the same rule)."""
    served = [problem.root / name for name in (hint_files.FILE, TRY_FILE)]
    texts = [path.read_text(encoding="utf-8") for path in served if path.is_file()]
    if not texts:
        return []
    public = [problem.starter_path, problem.tests_dir / "test_public.py", problem.probes_path]
    public_text = "\n".join(
        p.read_text(encoding="utf-8") for p in [*public, *problem.root.glob("prompt.*.md")] if p.is_file()
    )
    secret = [
        problem.tests_dir / "test_hidden.py",
        problem.tests_dir / "conftest.py",
        *problem.root.glob("solutions/**/*.py"),
    ]
    found = []
    for path in secret:
        for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
            line = line.strip()
            if len(line) >= SECRET_LINE and line not in public_text and not line.startswith(("#", '"""')):
                found += [f"{path.relative_to(problem.root)}: {line[:60]!r}" for text in texts if line in text]
    return found


def static_checks(problem: Problem) -> Iterator[Check]:
    """Checks that run nothing: files present, statements and titles in both languages, declarations parse."""
    for rel in REQUIRED_FILES:
        path = problem.root / rel
        ok = path.is_file() and path.read_text(encoding="utf-8").strip() != ""
        yield Check(f"{rel} present", ok, 0.0, "" if ok else "missing or empty")
    title = missing_language(Text(zh=problem.meta.title.zh, en=problem.meta.title.en))
    yield Check("title in zh and en", not title, 0.0, title)
    for lang in LANGS:
        path = problem.root / f"prompt.{lang}.md"
        if path.is_file():
            broken = unrendered(path.read_text(encoding="utf-8"))
            yield Check(f"prompt.{lang}.md renders whole (as the page renders it)", not broken, 0.0, _listed(broken))
    for name, rule, mend in PROBE_RULES:
        found = [str(f) for f in rule(problem.root / "tests" / "probes.py")]
        yield Check(name, not found, 0.0, _listed(found) + (mend if found else ""))
    gaps = ladder_gaps(problem)
    yield Check(f"{hint_files.FILE} parses, in zh and en, for tests that exist", not gaps, 0.0, _listed(gaps))
    secrets = hints_show_no_secret(problem)
    yield Check(
        "hints and Try examples repeat no line of a solution or hidden test", not secrets, 0.0, _listed(secrets)
    )
    gaps = example_problems(problem)
    yield Check(f"{TRY_FILE} names probes that exist, and its examples read", not gaps, 0.0, _listed(gaps))
    started = time.monotonic()
    try:
        wrong = problem.wrong_solutions()
        yield Check(
            f"{len(wrong)} wrong solutions declare a verdict",
            bool(wrong),
            time.monotonic() - started,
            "" if wrong else "solutions/wrong/ has no solutions",
        )
    except Exception as exc:  # noqa: BLE001 - a malformed declaration is reported, not raised
        yield Check("wrong solutions declare a verdict", False, 0.0, str(exc))


def report_checks(case: SolutionCase, check: Check, budget: float, problem: Problem | None = None) -> Iterator[Check]:
    """What a judged file's report must also show: hints on hidden cases (the reference), feedback in both
    languages (the starter and each wrong solution), and the reference's time within the wall limit."""
    report = check.report
    if report is None:
        return
    if case.expect == Verdict.accepted and check.ok:
        within = check.seconds < budget
        yield Check(
            f"{case.path.name}: whole suite within {budget:.0f}s",
            within,
            check.seconds,
            "" if within else f"took {check.seconds:.1f}s",
        )
    if case.path.name == "reference.py" and case.path.parent.name == "solutions":
        gaps = hint_gaps(report)
        yield Check("every hidden test has a hint in zh and en", not gaps, 0.0, _listed(gaps))
        if problem is not None:
            leaks = leaked_by_hints(report, problem)
            yield Check("no hidden check's hints name its input", not leaks, 0.0, _listed(leaks))
    if case.expect != Verdict.accepted and report.verdict != Verdict.accepted:
        gaps = feedback_gaps(report)
        yield Check(
            f"{case.label.split(' ')[0]}: its report says what is wrong, in zh and en", not gaps, 0.0, _listed(gaps)
        )


def _listed(gaps: list[str], shown: int = 3) -> str:
    more = f" (+{len(gaps) - shown} more)" if len(gaps) > shown else ""
    return "; ".join(gaps[:shown]) + more


def check_problem(problem: Problem, grade: Callable[[str, str], Report]) -> Iterator[Check]:
    """Every check of one problem, yielded as it finishes."""
    yield from static_checks(problem)
    for case in solution_cases(problem):
        if not case.path.is_file():
            continue
        check = case.judge(grade, problem)
        yield check
        yield from report_checks(case, check, problem.meta.limits.wall_s, problem)
