"""Host faults of a GPU tier: a runner that cannot run its tier makes the host's internal_error, never the learner's.

Before the passes: a GPU runner that fails its canary (judge.runners.canary) is unavailable, and its tier
is still to be judged, as on a host without a GPU. After the GPU pass: an exception of the runner, or a
failure that looks like the host's followed by a failing canary, is an internal_error with a retryable fault,
the tier `failed`, and only that runner discarded (the caller's on_fault).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from judge.grading.decide import CheckerLog
from judge.problem.tiers import GPU
from judge.report.catalog import say
from judge.report.models import Fault, Outcome, Report, Verdict
from judge.runners import canary
from judge.runners.base import Runner
from judge.runners.plan import GPU_RUNNERS, Pass, TierPlan
from sandbox import JobFacts

FAILED = "failed"  # a tier that could not run for a reason of the host
NATIVE_FLAG = "gpu-native-code"  # for instructors: this tier ran where native code is allowed (threat model)


@dataclass
class HostFault:
    runner: str
    why: str


def gate(plan: TierPlan, runners: Callable[[str], Runner]) -> tuple[TierPlan, dict[str, str]]:
    """The plan without the GPU passes whose runner is unavailable; their tiers join the skipped ones."""
    kept: list[Pass] = []
    skipped = list(plan.skipped)
    unavailable: dict[str, str] = {}
    for step in plan.passes:
        why = _unavailable(step.runner, runners) if step.runner in GPU_RUNNERS else ""
        if why:
            unavailable[step.runner] = why
            skipped += [tier for tier in step.run_tiers if tier not in skipped]
        else:
            kept.append(step)
    if not unavailable:
        return plan, {}
    reasons = "; ".join(f"{key} is unavailable: {why}" for key, why in unavailable.items())
    return TierPlan(tuple(kept), tuple(skipped), f"{plan.why}; {reasons}"), unavailable


def _unavailable(key: str, runners: Callable[[str], Runner]) -> str:
    try:
        runner = runners(key)
    except Exception as exc:  # noqa: BLE001 - a runner that cannot be built is unavailable, with the reason
        return f"the runner could not start: {type(exc).__name__}: {exc}"
    result = canary.status(runner)
    return "" if result.ready else result.why


def looks_like_host(log: CheckerLog, facts: JobFacts) -> bool:
    """A failure on the GPU pass that the host may have caused; the canary then tells whose it was.

    Any failure counts: a GPU gone bad shows as a wrong value or a learner-looking exception as often as by
    a message naming CUDA, and a canary (seconds) after a failing GPU pass is cheap next to a wrong verdict."""
    if log.fault or facts.sandbox_error or facts.signal is not None or facts.exit_code not in (None, 0):
        return True
    if log.import_error is not None or len(log.finished) < len(log.collected):
        return True
    return any(case.outcome not in (Outcome.passed, Outcome.skipped) for case in log.finished.values())


@dataclass
class GpuPasses:
    """Wraps each pass of one judgement: GPU passes' host faults, each tier's own isolation layers."""

    runners: Callable[[str], Runner]
    on_fault: Callable[[str], None] = lambda key: None
    fault: HostFault | None = None
    tier_layers: dict[str, dict[str, str]] = field(default_factory=dict)
    native: bool = False

    def run(self, step: Pass, one_pass: Callable[[], tuple[CheckerLog, JobFacts]]) -> tuple[CheckerLog, JobFacts]:
        if step.runner not in GPU_RUNNERS:
            return self._seen(step, *one_pass())
        try:
            log, facts = one_pass()
        except Exception as exc:  # noqa: BLE001 - the GPU runner failed outside the learner's job
            why = f"the runner failed: {type(exc).__name__}: {exc}"
            self._fault(step.runner, why)
            return CheckerLog(fault=f"GPU runner {step.runner}: {why}"), JobFacts()
        self.native = self.native or self._policy_native(step.runner)
        if looks_like_host(log, facts):
            result = canary.check(self.runners(step.runner))
            if not result.ready:
                self._fault(step.runner, result.why)
                log.fault = "; ".join(filter(None, (log.fault, f"GPU runner {step.runner}: {result.why}")))
        return self._seen(step, log, facts)

    def _seen(self, step: Pass, log: CheckerLog, facts: JobFacts) -> tuple[CheckerLog, JobFacts]:
        for tier in step.run_tiers:
            self.tier_layers[tier] = dict(facts.layers)
        return log, facts

    def _policy_native(self, key: str) -> bool:
        try:
            return self.runners(key).policy.native_code
        except Exception:  # noqa: BLE001 - only for the flag
            return True

    def _fault(self, key: str, why: str) -> None:
        self.fault = HostFault(key, why)
        try:
            canary.forget(self.runners(key))
        except Exception:  # noqa: BLE001 - the runner is being discarded anyway
            pass
        self.on_fault(key)

    def finish(self, report: Report) -> Report:
        report.tier_layers = {tier: layers for tier, layers in self.tier_layers.items() if tier in report.tiers}
        if self.native and report.tiers.get(GPU) == "ran":
            report.flags = [*report.flags, NATIVE_FLAG]
        if self.fault is None:
            return report
        return report.model_copy(
            update=dict(
                verdict=Verdict.internal_error,
                fault=Fault(what="gpu-runner", retryable=True),
                message=say("gpu.host_fault", runner=self.fault.runner, why=self.fault.why[:300]),
                detail=f"GPU runner {self.fault.runner}: {self.fault.why}\n{report.detail}",
                tiers={**report.tiers, GPU: FAILED},
            )
        )
