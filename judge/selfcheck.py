"""`judge check`: prove a problem folder sound — statements, starter, reference, valid and wrong solutions."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from judge.models import Verdict
from judge.problems import Problem

REQUIRED_FILES = ("prompt.zh.md", "prompt.en.md", "starter.py", "tests/probes.py", "tests/test_public.py",
                  "tests/test_hidden.py", "solutions/reference.py")
NOT_A_STARTER_VERDICT = (Verdict.accepted, Verdict.compile_error, Verdict.internal_error)


@dataclass
class Check:
    name: str
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class SolutionCase:
    """One file of a problem and the verdict it must (or must not) get."""

    label: str
    path: Path
    expect: Verdict | None   # None: the starter, which must import and must not be accepted

    def judge(self, grade: Callable[[str, str], object], problem: Problem) -> Check:
        started = time.monotonic()
        report = grade(problem.id, self.path.read_text(encoding="utf-8"))
        seconds = time.monotonic() - started
        if self.expect is None:
            ok = report.verdict not in NOT_A_STARTER_VERDICT
            want = "not accepted, and importable"
        else:
            ok = report.verdict == self.expect
            want = self.expect.value
        detail = "" if ok else f"got {report.verdict.value}, want {want}: {_failures(report)}"
        return Check(self.label, ok, seconds, detail)


def _failures(report) -> str:
    bad = [f"{c.name}: {c.message}" for c in report.cases if c.outcome.value != "passed"][:3]
    return "; ".join(bad) or report.message or report.detail[:300]


def solution_cases(problem: Problem) -> list[SolutionCase]:
    cases = [SolutionCase("starter is rejected", problem.starter_path, None),
             SolutionCase("reference is accepted", problem.reference_path, Verdict.accepted)]
    cases += [SolutionCase(f"valid/{p.name} is accepted", p, Verdict.accepted) for p in problem.valid_solutions()]
    cases += [SolutionCase(f"wrong/{p.name} gets {v.value}", p, v) for p, v in problem.wrong_solutions()]
    return cases


def static_checks(problem: Problem) -> Iterator[Check]:
    """Checks that run nothing: files present, statements non-empty, declarations parse."""
    for rel in REQUIRED_FILES:
        path = problem.root / rel
        ok = path.is_file() and path.read_text(encoding="utf-8").strip() != ""
        yield Check(f"{rel} present", ok, 0.0, "" if ok else "missing or empty")
    started = time.monotonic()
    try:
        wrong = problem.wrong_solutions()
        yield Check(f"{len(wrong)} wrong solutions declare a verdict", bool(wrong), time.monotonic() - started,
                    "" if wrong else "solutions/wrong/ has no solutions")
    except Exception as exc:  # noqa: BLE001 - a malformed declaration is reported, not raised
        yield Check("wrong solutions declare a verdict", False, 0.0, str(exc))


def check_problem(problem: Problem, grade: Callable[[str, str], object]) -> Iterator[Check]:
    """Every check of one problem, yielded as it finishes."""
    yield from static_checks(problem)
    budget = problem.meta.limits.wall_s
    for case in solution_cases(problem):
        if not case.path.is_file():
            continue
        check = case.judge(grade, problem)
        yield check
        if case.expect == Verdict.accepted and check.ok:
            within = check.seconds < budget
            yield Check(f"{case.path.name}: whole suite within {budget:.0f}s", within, check.seconds,
                        "" if within else f"took {check.seconds:.1f}s")
