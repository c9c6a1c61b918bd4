"""A verdict says which tiers ran: accepted with a tier still to do says so, and an exercise that is all GPU tier is
refused on a judge without a GPU runner (nothing judged), never called the judge's own fault."""

import shutil

import pytest

from judge.checker.events import CollectedCase
from judge.errors import CannotJudgeHere
from judge.grading.decide import CheckerLog, decide, only_skipped_tiers
from judge.report.models import CaseResult, Outcome, Verdict
from judge.service import Judge
from judge.settings import Settings
from sandbox.base import JobFacts
from tests.conftest import FIXTURE_PROBLEMS

LIMITS = {"memory": 2048, "wall": 60, "output": 1024}


def tiered_log(*cases, skipped=("gpu",)):
    """cases: (tier, outcome) pairs."""
    log = CheckerLog(exit_code=0, skipped_tiers=skipped)
    for i, (tier, outcome) in enumerate(cases):
        log.collected.append(CollectedCase(id=f"t.py::c{i}", name=f"c{i}", hidden=False, tier=tier))
        log.finished[f"t.py::c{i}"] = CaseResult(name=f"c{i}", outcome=Outcome(outcome))
    return log


def test_accepted_with_the_gpu_tier_skipped_says_the_gpu_tier_is_still_to_be_judged():
    report = decide("7", "submit", tiered_log(("cpu", "passed"), ("gpu", "skipped")), JobFacts(exit_code=0), LIMITS)
    assert report.verdict == Verdict.accepted and report.tiers == {"cpu": "ran", "gpu": "skipped"}
    assert report.message.en == "accepted on the CPU tier; the GPU tier is still to be judged"
    assert report.public("zh").message == "CPU 部分通过；GPU 部分尚待评判"
    assert report.public("en").message == "accepted on the CPU tier; the GPU tier is still to be judged"


def test_accepted_with_every_tier_run_says_all_tests_passed():
    log = tiered_log(("cpu", "passed"), ("gpu", "passed"), skipped=())
    assert decide("7", "submit", log, JobFacts(exit_code=0), LIMITS).message.en == "All tests passed"


def test_only_skipped_tiers_is_every_case_in_a_skipped_tier_and_nothing_else():
    assert only_skipped_tiers(tiered_log(("gpu", "skipped"), ("gpu", "skipped"))) == ("gpu",)
    assert only_skipped_tiers(tiered_log(("cpu", "passed"), ("gpu", "skipped"))) == ()
    assert only_skipped_tiers(tiered_log(("gpu", "skipped"), skipped=())) == ()
    faulty = tiered_log(("gpu", "skipped"))
    faulty.fault = "the sandbox failed"
    assert only_skipped_tiers(faulty) == ()


@pytest.mark.slow
def test_an_exercise_whose_every_case_is_gpu_tier_is_refused_without_a_gpu_runner(tmp_path):
    root = tmp_path / "900-echo"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", root)
    toml = root / "problem.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('device = "cpu"', 'device = "cuda"'), encoding="utf-8")
    for name in ("test_public.py", "test_hidden.py"):
        test = root / "tests" / name
        test.write_text("import pytest\npytestmark = pytest.mark.gpu\n" + test.read_text(encoding="utf-8"))
    source = (root / "solutions" / "reference.py").read_text(encoding="utf-8")
    with Judge(Settings(problems_dir=tmp_path, gpu_runner="")) as judge:
        with pytest.raises(CannotJudgeHere) as refused:
            judge.grade("900", source, "submit")
    assert refused.value.http_status == 409
    assert refused.value.text.en.startswith("exercise 900 needs a GPU runner: every one of its tests is in the GPU")
    assert "GPU 判题机" in refused.value.text.zh
