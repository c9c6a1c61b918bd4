"""Scores measure the lesson: a solution of 100 that misses one of the chapter's central lessons (mutates_args
naming the caches, a fake that only reads metadata, a backward that autograd accepts) loses at least 40%."""

from pathlib import Path

import pytest

from judge.report.models import Verdict

WRONG_100 = Path(__file__).resolve().parents[2] / "problems" / "100-custom-op" / "solutions" / "wrong"
CENTRAL_MISTAKES = ["kv_mutates_args_empty", "rms_no_fake", "rms_fake_reads_data", "rms_backward_returns_list"]


@pytest.mark.slow
@pytest.mark.parametrize("name", CENTRAL_MISTAKES)
def test_missing_a_central_lesson_of_100_loses_at_least_40_percent(judge, name):
    report = judge.grade("100", (WRONG_100 / f"{name}.py").read_bytes(), mode="submit")
    assert report.verdict == Verdict.wrong_answer, report.verdict
    assert report.score <= 0.6, f"{name} still scores {report.score:.3f}"
    unweighted = report.passed / report.total
    assert unweighted > 0.6  # counted one point a case, the same mistake would have cost far less


# Mistakes a learner must see fail in Run (the public tests alone), not only after Submit.
CAUGHT_IN_RUN = [("100", WRONG_100 / "kv_assumes_2d_caches.py")]


@pytest.mark.slow
@pytest.mark.parametrize("problem,path", CAUGHT_IN_RUN, ids=[p.stem for _, p in CAUGHT_IN_RUN])
def test_a_public_run_already_fails_these_mistakes(judge, problem, path):
    report = judge.grade(problem, path.read_bytes(), mode="run")
    assert report.verdict == Verdict.wrong_answer, [(c.name, c.outcome.value) for c in report.cases]
