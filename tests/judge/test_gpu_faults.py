"""A GPU runner's host faults never fail a learner, and never touch the shared zygotes or the other runners.

gpu_runner="local" on this CPU host is a GPU runner whose canary fails (no CUDA device): its tier is still to
be judged. Where a test needs a passing canary or a failing one after the pass, canary.status / canary.check
are replaced: the fixture problem's GPU cases need no CUDA, so the pass itself is real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge import Judge
from judge.grading import hostfault
from judge.report.models import Verdict
from judge.runners import canary
from judge.runners import plan as tier_plans
from judge.runners.base import Runner
from judge.settings import Settings
from sandbox import ZygoteClient
from sandbox.client import ZygoteDied

# One xdist worker for the module: its tests inject faults into one warm judge and check what they left.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("gpu-faults")]
FIXTURES = Path(__file__).parent.parent / "docker" / "fixtures" / "problems"
GOOD = "def add(a, b):\n    return a + b\n"
# Fails on the GPU pass only (the CPU tier runs under TRITON_INTERPRET=1), with a CUDA-looking error.
GPU_ONLY_FAILS = (
    "import os\n\n\ndef add(a, b):\n"
    "    if os.environ.get('TRITON_INTERPRET') != '1':\n"
    "        raise RuntimeError('CUDA error: an illegal memory access was encountered')\n"
    "    return a + b\n"
)
READY = canary.CanaryResult(True, "ready (a stand-in GPU)", {"process": "active"})
BROKEN = canary.CanaryResult(False, "CUDA initialisation failed: injected by the test")


@pytest.fixture(scope="module")
def gpu_judge():
    with Judge(Settings(problems_dir=FIXTURES, gpu_runner="local")) as judge:
        judge.warm()
        yield judge


def _untouched(judge: Judge, zygotes: tuple[ZygoteClient, ZygoteClient], local: Runner) -> None:
    assert judge._zygotes is zygotes and all(z.alive for z in zygotes)
    assert judge._runners.get(tier_plans.LOCAL) is local and local.alive


def test_a_runner_whose_canary_fails_leaves_the_gpu_tier_to_be_judged(gpu_judge):
    report = gpu_judge.grade("950", GOOD)
    assert report.verdict == Verdict.accepted, report.detail
    assert report.tiers == {"cpu": "ran", "gpu": "skipped"} and report.fault is None
    seen = canary.status(gpu_judge.runner(tier_plans.GPU_LOCAL))
    assert not seen.ready and "no CUDA device visible to the worker" in seen.why
    assert "landlock" in seen.active_layers()  # the canary ran as a GPU job does, under the GPU policy


def test_a_host_fault_after_a_passing_canary_is_a_retryable_internal_error(gpu_judge, monkeypatch):
    monkeypatch.setattr(canary, "status", lambda runner: READY)
    checked = []
    monkeypatch.setattr(canary, "check", lambda runner: checked.append(runner) or BROKEN)
    gpu_judge.grade("950", GOOD)  # warm the local runner
    zygotes, local = gpu_judge._zygotes, gpu_judge._runners[tier_plans.LOCAL]
    faulty = gpu_judge._runners[tier_plans.GPU_LOCAL]
    report = gpu_judge.grade("950", GPU_ONLY_FAILS)
    assert checked == [faulty]  # the failure looked like the host's: the canary ran again, and failed
    assert report.verdict == Verdict.internal_error
    assert report.fault is not None and report.fault.retryable and report.fault.what == "gpu-runner"
    assert report.tiers == {"cpu": "ran", "gpu": hostfault.FAILED}
    assert "GPU runner" in report.message.en and "injected by the test" in report.message.en
    assert "GPU 判题机" in report.message.zh
    _untouched(gpu_judge, zygotes, local)
    assert tier_plans.GPU_LOCAL not in gpu_judge._runners and not faulty.alive  # that runner only


def test_the_same_failure_with_a_healthy_canary_is_the_learners(gpu_judge, monkeypatch):
    monkeypatch.setattr(canary, "status", lambda runner: READY)
    monkeypatch.setattr(canary, "check", lambda runner: READY)
    report = gpu_judge.grade("950", GPU_ONLY_FAILS)
    assert report.verdict in (Verdict.runtime_error, Verdict.wrong_answer), report.detail
    assert report.fault is None and report.tiers == {"cpu": "ran", "gpu": "ran"}
    assert report.passed == 3 and report.total == 5
    assert set(report.tier_layers) == {"cpu", "gpu"} and report.tier_layers["gpu"]["landlock"] == "active"
    assert hostfault.NATIVE_FLAG in report.flags  # instructors see that the GPU tier allowed native code
    accepted = gpu_judge.grade("950", GOOD)
    assert accepted.verdict == Verdict.accepted and accepted.tiers == {"cpu": "ran", "gpu": "ran"}


class FakeGpuRunner:
    """A GPU runner whose container dies outside the learner's job."""

    name = tier_plans.GPU_DOCKER
    closed = 0

    def __init__(self):
        from judge.runners.docker import GPU_POLICY

        self.policy, self._closed = GPU_POLICY, False

    @property
    def alive(self) -> bool:
        return not self._closed

    def start(self, launch, channel_fd):
        raise ZygoteDied("the worker container exited (injected by the test)")

    def describe(self) -> str:
        return "fake"

    def close(self) -> None:
        self._closed = True
        FakeGpuRunner.closed += 1


def test_one_runners_fault_leaves_the_others_and_the_shared_zygotes_untouched(monkeypatch):
    pytest.importorskip("docker")
    import judge.service as service

    real = service.make_runner
    built: list[FakeGpuRunner] = []

    def make(key, settings, zygote):
        if key == tier_plans.GPU_DOCKER:
            built.append(FakeGpuRunner())
            return built[-1]
        return real(key, settings, zygote)

    monkeypatch.setattr(service, "make_runner", make)
    monkeypatch.setattr(canary, "status", lambda runner: READY)
    with Judge(Settings(problems_dir=FIXTURES, gpu_runner="docker")) as judge:
        first = judge.grade("950", GOOD)
        zygotes, local = judge._zygotes, judge._runners[tier_plans.LOCAL]
        assert first.verdict == Verdict.internal_error and first.fault and first.fault.retryable
        assert first.tiers == {"cpu": "ran", "gpu": hostfault.FAILED}
        assert "injected by the test" in first.detail
        _untouched(judge, zygotes, local)
        assert built[0]._closed and tier_plans.GPU_DOCKER not in judge._runners
        second = judge.grade("950", GOOD)  # a fresh GPU runner; the CPU side never restarted
        assert len(built) == 2 and second.fault and second.tiers["gpu"] == hostfault.FAILED
        _untouched(judge, zygotes, local)


def test_107s_reference_on_a_cpu_host_with_a_gpu_runner_is_accepted_on_its_cpu_tier():
    """The issue's reproduction: PRACTICE_GPU_RUNNER=local on a host without a GPU."""
    from judge.cli.doctor import gpu_runner_status

    settings = Settings(gpu_runner="local")
    with Judge(settings) as judge:
        problem = judge.problem("107")
        report = judge.grade("107", (problem.root / "solutions" / "reference.py").read_text())
    assert report.verdict == Verdict.accepted, report.detail
    assert report.tiers == {"cpu": "ran", "gpu": "skipped"}
    status = gpu_runner_status(settings)
    assert status[tier_plans.GPU_LOCAL]["ready"] is False
    assert "no CUDA device" in str(status[tier_plans.GPU_LOCAL]["why"])
