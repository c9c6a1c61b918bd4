"""Tiers without a GPU runner (runs everywhere, no docker): GPU-tier cases skipped with the reason, CPU tier judged."""

from pathlib import Path

import pytest

from judge import Judge
from judge.report.models import Outcome, Verdict
from judge.runners import canary
from judge.runners import plan as tier_plans
from judge.settings import Settings

pytestmark = pytest.mark.slow
PROBLEMS = Path(__file__).parent / "fixtures" / "problems"
GOOD, BAD = "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a * b\n"


@pytest.fixture(scope="module")
def tier_judge():
    with Judge(Settings(problems_dir=PROBLEMS, gpu_runner="")) as judge:
        yield judge


def test_gpu_tier_is_skipped_with_the_reason_and_the_cpu_tier_decides(tier_judge):
    report = tier_judge.grade("950", GOOD)
    assert report.verdict == Verdict.accepted, report.detail
    assert report.tiers == {"cpu": "ran", "gpu": "skipped"}
    skipped = [c for c in report.cases if c.outcome == Outcome.skipped]
    assert [c.name for c in skipped] == ["test_add_gpu", "test_add_gpu_hidden"]
    assert "CUDA GPU" in skipped[0].message.en and "GPU" in skipped[0].message.zh
    assert report.score == 1.0 and report.passed == 3 and report.total == 5
    public = report.public("en")
    assert public.tiers == {"cpu": "ran", "gpu": "skipped"}
    assert public.cases[-1].hidden and public.cases[-1].outcome == Outcome.skipped


def test_cpu_tier_failure_is_still_wrong_answer(tier_judge):
    report = tier_judge.grade("950", BAD)
    assert report.verdict == Verdict.wrong_answer
    assert report.score == round(1 / 3, 4) and report.tiers["gpu"] == "skipped"  # the TRITON_INTERPRET case passed


def test_plan_names_runners_and_reasons():
    meta = Judge(Settings(problems_dir=PROBLEMS)).problem("950").meta
    alone = tier_plans.plan(meta, Settings(gpu_runner=""))
    assert alone.skipped == ("gpu",) and [p.runner for p in alone.passes] == ["local"]
    assert alone.passes[0].env == {"TRITON_INTERPRET": "1"} and "no GPU runner" in alone.why
    both = tier_plans.plan(meta, Settings(sandbox="docker", gpu_runner="docker"))
    assert [(p.runner, p.run_tiers) for p in both.passes] == [("docker", ("cpu",)), ("gpu-docker", ("gpu",))]
    assert both.skipped == ()


def test_gpu_runner_judges_the_gpu_tier_in_a_second_pass(monkeypatch):
    """gpu_runner="local" here stands for a GPU host: the fixture's GPU cases need no CUDA, and its canary
    (which would fail here: no CUDA device) is replaced by a passing one (tests/judge/test_gpu_faults.py)."""
    ready = canary.CanaryResult(True, "ready (stand-in)")
    monkeypatch.setattr(canary, "status", lambda runner: ready)
    monkeypatch.setattr(canary, "check", lambda runner: ready)  # after the wrong answer's failing GPU pass
    events = []
    with Judge(Settings(problems_dir=PROBLEMS, gpu_runner="local")) as judge:
        report = judge.grade("950", GOOD, on_event=events.append)
        wrong = judge.grade("950", BAD)
    assert report.verdict == Verdict.accepted, report.detail
    assert report.tiers == {"cpu": "ran", "gpu": "ran"} and report.passed == report.total == 5
    assert [c.name for c in report.cases][-2:] == ["test_add_gpu", "test_add_gpu_hidden"]
    finished = [e for e in events if e.type == "case_finished"]
    assert [e.index for e in finished] == [1, 2, 3, 4, 5] and finished[-1].total == 5
    assert wrong.verdict == Verdict.wrong_answer and wrong.passed == 1 and wrong.score == 0.2
