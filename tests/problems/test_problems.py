"""Self-test of every problem: every check of `judge check --all` (judge.problem.selfcheck.check_problem), one pytest
case per file, so the suite proves the shipped problems without judging each file a second time through the CLI."""

import pytest

from judge.problem.folders import ProblemSet
from judge.problem.selfcheck import report_checks, solution_cases, static_checks
from judge.settings import Settings

PROBLEMS = ProblemSet(Settings().problems_dir).all()


@pytest.mark.parametrize("problem", PROBLEMS, ids=[f"{p.id}-{p.meta.slug}" for p in PROBLEMS])
def test_problem_folder_is_complete(problem):
    failed = [f"{c.name}: {c.detail}" for c in static_checks(problem) if not c.ok]
    assert not failed, failed


CASES = [(p, case) for p in PROBLEMS for case in solution_cases(p)]


@pytest.mark.slow
@pytest.mark.parametrize("problem,case", CASES, ids=[f"{p.id}:{c.label}" for p, c in CASES])
def test_solution_gets_its_verdict(judge, problem, case):
    check = case.judge(judge.grade, problem)
    assert check.ok, check.detail
    checks = report_checks(case, check, problem.meta.limits.wall_s, problem)
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.ok]
    assert not failed, failed  # hints on hidden cases, feedback in both languages, the suite within the wall limit
