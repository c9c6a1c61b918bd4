"""Parked pairs (judge.grading.parking): a Run that finds its pairs parked judges exactly as one that starts them:
the learner's file and its name arrive with the work, the time limit counts from the work, a dead pair is replaced."""

from __future__ import annotations

import contextlib
import shutil
import time

import pytest

from judge import Judge
from judge.report.models import Outcome, Verdict
from sandbox.client import ZygoteDied
from tests.conftest import FIXTURE_PROBLEMS

pytestmark = pytest.mark.slow

WALL_S = 2  # 900's time limit in these tests' copy of the fixture problems
REFERENCE = (FIXTURE_PROBLEMS / "900-echo" / "solutions" / "reference.py").read_text()


@pytest.fixture
def judge(tmp_path, fixture_settings):
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURE_PROBLEMS, problems)
    toml = problems / "900-echo" / "problem.toml"
    toml.write_text(toml.read_text().replace("wall_s = 6", f"wall_s = {WALL_S}"))
    with Judge(fixture_settings.model_copy(update={"problems_dir": problems, "park": True})) as judge:
        yield judge


def parked_run(judge: Judge, source: str, display_name: str = "mine.py"):
    """A Run after one that parked its pairs: the report, and how many parked pairs it took."""
    assert judge.grade("900", REFERENCE, mode="run").verdict == Verdict.accepted
    assert judge.settle(), "the parked pairs were not ready"
    parking = judge.parking
    assert parking is not None and parking.pairs(), "nothing was parked after a Run"
    taken = parking.taken
    report = judge.grade("900", source, mode="run", display_name=display_name)
    return report, parking.taken - taken


def test_a_run_takes_its_parked_pairs_and_judges_the_file_it_is_given(judge):
    report, taken = parked_run(judge, REFERENCE)
    assert taken == 2 and report.verdict == Verdict.accepted and report.passed == report.total == 2
    wrong = "def add(a, b):\n    return a - b\n"
    report, taken = parked_run(judge, wrong)
    assert taken == 2 and report.verdict == Verdict.wrong_answer and report.passed == 0


def test_the_learners_name_and_lines_reach_a_parked_worker(judge):
    raising = "import torch\n\n\ndef add(a, b):\n    raise ValueError('no sums today')\n"
    report, taken = parked_run(judge, raising, display_name="my_echo.py")
    assert taken == 2 and report.verdict == Verdict.wrong_answer
    case = report.cases[0]
    assert case.outcome == Outcome.failed
    assert case.message.en == "Your code raised ValueError: no sums today (my_echo.py line 5)"  # as a fresh pair says
    report, taken = parked_run(judge, "def add(a, b):\n    return a +\n", display_name="my_echo.py")
    assert report.verdict == Verdict.compile_error  # a syntax error is caught before any pair (judge.grading.precheck)
    report, taken = parked_run(judge, "import nonexistent_module_xyz\n", display_name="my_echo.py")
    assert taken == 2 and report.verdict == Verdict.compile_error and "nonexistent_module_xyz" in report.message.en


def test_a_parked_pairs_time_limit_counts_from_its_run(judge):
    assert judge.grade("900", REFERENCE, mode="run").verdict == Verdict.accepted
    assert judge.settle()
    time.sleep(WALL_S + 1)  # parked longer than the time limit: the condition under test, not a wait for a race
    report = judge.grade("900", REFERENCE, mode="run")
    assert report.verdict == Verdict.accepted, report.verdict
    looping = "import time\n\nwhile True:\n    time.sleep(0.01)\n"
    report, taken = parked_run(judge, looping, display_name="loop.py")
    assert taken == 2 and report.verdict == Verdict.time_limit_exceeded
    assert report.duration_s < WALL_S + 8  # the 2 s limit held, from the work's arrival
    assert "running line 4" in report.message.en  # the stack dump was armed with the work


def test_a_parked_pair_that_died_is_replaced_by_a_fresh_one(judge):
    assert judge.grade("900", REFERENCE, mode="run").verdict == Verdict.accepted
    assert judge.settle()
    parking = judge.parking
    assert parking is not None
    for parked in parking.pairs():
        parked.pair.worker.kill()
        parked.pair.worker.wait(30)
    taken = parking.taken
    report = judge.grade("900", REFERENCE, mode="run")
    assert report.verdict == Verdict.accepted and parking.taken == taken


def test_closing_the_judge_ends_its_parked_pairs(judge):
    assert judge.grade("900", REFERENCE, mode="run").verdict == Verdict.accepted
    assert judge.settle()
    parking = judge.parking
    assert parking is not None
    jobs = [job for parked in parking.pairs() for job in (parked.pair.worker, parked.pair.checker)]
    assert len(jobs) == 4
    judge.close()
    for job in jobs:
        with contextlib.suppress(ZygoteDied):  # its zygote is closed too: no facts, only the end
            job.wait(30)
        assert job.ended
    assert not parking.pairs()


def test_with_parking_off_nothing_is_parked(tmp_path, fixture_settings):
    with Judge(fixture_settings.model_copy(update={"park": False})) as judge:
        assert judge.grade("900", REFERENCE, mode="run").verdict == Verdict.accepted
        assert judge.parking is None
