"""Self-test of every problem: the same checks as `judge check --all`, one pytest case per file."""

import pytest

from judge.problems import ProblemSet
from judge.selfcheck import solution_cases, static_checks
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
    if case.expect is not None and case.expect.value == "accepted":
        assert check.seconds < problem.meta.limits.wall_s, f"the whole suite took {check.seconds:.1f}s"
