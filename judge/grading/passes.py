"""One judgement: a worker started through its runner, a checker wired to it, events relayed, facts decided.

A problem with tiers may take two passes (CPU tier on the CPU runner, GPU tier on a GPU runner), and a Run alone
on its judge is split into shards judged at once; their case logs and worker facts are merged before the one
decision. Every pass is one worker-and-checker pair (judge.grading.pair) over the same Judgement.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from judge.errors import CannotJudgeHere
from judge.grading import hostfault
from judge.grading.decide import CheckerLog, decide, only_skipped_tiers
from judge.grading.judgement import Judgement, Runtime
from judge.grading.pair import launch, run_pair
from judge.grading.parking import PARKED_S
from judge.grading.relay import Relay
from judge.grading.started import StartedPair, start_pair
from judge.grading.stuck import find_stuck
from judge.grading.tracing import attach_traces
from judge.report.catalog import say
from judge.report.events import Done, EventSink
from judge.report.i18n import Text
from judge.report.models import Report
from judge.runners import plan as tier_plans
from judge.runners.base import WorkerLaunch
from judge.wire.jobs import CheckerPayload, ParkedWork
from sandbox import JobFacts, JobSpec

CHECKER_GRACE_S = 30  # the checker outlives the worker's limit by this much to report every case


def grade_once(judgement: Judgement, runtime: Runtime, on_event: EventSink | None = None) -> Report:
    """The judgement's passes on the runners its problem's tier plan names (judge.runners.plan), then the one
    decision. runtime.cancel kills a pass's jobs at once; runtime.costs (seconds per case id from earlier
    judgements) balance a split Run and are updated from this one."""
    emit = on_event or (lambda event: None)
    problem, settings = judgement.problem, runtime.settings
    # A GPU runner that fails its canary is unavailable: its tier is still to be judged (judge.grading.hostfault).
    plan, _unavailable = hostfault.gate(tier_plans.plan(problem.meta, settings), runtime.runners)
    gpu = hostfault.GpuPasses(runtime.runners, runtime.on_runner_fault)
    relay = Relay(emit)
    alone_on_local = len(plan.passes) == 1 and plan.passes[0].runner == tier_plans.LOCAL
    split = runtime.shards if judgement.mode == "run" and alone_on_local else 1

    def one_pass(step: tier_plans.Pass, part: Judgement = judgement) -> Callable[[], tuple[CheckerLog, JobFacts]]:
        """The pass (or its shard), started when called: its runner is taken inside the GPU passes' fault handling."""
        return lambda: _one_pass(part, runtime, step, plan.skipped, relay)

    if split > 1:
        results = _split_pass(split, lambda k: one_pass(plan.passes[0], judgement.part(k, split))())
    else:
        results = [gpu.run(step, one_pass(step)) for step in plan.passes if not runtime.cancelled()]
    log, worker_facts = merge(results)
    if split > 1 and len(log.collected) != relay.total:  # every shard's cases, each once, or no verdict from them
        log.fault = "; ".join(filter(None, (log.fault, f"shards collected {len(log.collected)} of {relay.total}")))
    runtime.costs.update((case_id, case.duration_s) for case_id, case in log.finished.items() if not case.hidden)
    log.skipped_tiers = plan.skipped
    if log.trace_requests and plan.passes and not runtime.cancelled():
        # the CPU tier's pass where there is one: the traced probes run on CPU tensors
        attach_traces(judgement, runtime, plan.passes[0], log)
    if only_skipped_tiers(log):  # every case needs a runner this judge lacks: refuse, as for a missing package
        raise CannotJudgeHere(say("tiers.needs_gpu_runner", id=problem.id))
    limits = judgement.limits
    report = decide(
        problem.id,
        judgement.mode,
        log,
        worker_facts,
        {"memory": limits.memory_mib, "wall": limits.wall_s, "output": limits.output_kib},
        source=judgement.source,
        memory_hint=Text(zh=limits.memory_hint.zh, en=limits.memory_hint.en) if limits.memory_hint else None,
    )
    report = gpu.finish(report)  # a GPU tier's host fault, each tier's own layers
    emit(Done(verdict=report.verdict))
    if alone_on_local:
        _park_next(judgement, runtime, plan.passes[0], plan.skipped, split)
    return report


def _one_pass(
    judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, skipped: tuple[str, ...], relay: Relay
) -> tuple[CheckerLog, JobFacts]:
    """One tier's pass (or one shard of a split Run): its worker and checker (parked ones where the judge has them
    ready: judge.grading.parking), the checker's events into a log."""
    parking = runtime.parking if _parks(judgement, runtime, step) else None
    parked = parking.take(_park_key(judgement, step, skipped)) if parking is not None else None
    work = ParkedWork(
        deadline=time.time() + judgement.limits.wall_s,
        display_name=judgement.display_name,
        source=judgement.source,
        shard=judgement.shard,
        costs=dict(runtime.costs),
    )
    if parked is not None and parked.go(work):
        pair = parked.pair.finish(relay.read, runtime.cancel)
    else:
        worker, checker = _pass_jobs(judgement, runtime, step, skipped)
        pair = run_pair(
            runtime.runners(step.runner), runtime.checker_zygote, worker, checker, relay.read, runtime.cancel
        )
    log, worker_facts = pair.read, pair.worker
    if worker_facts.timed_out:
        log.stuck = find_stuck(worker_facts.stack, judgement.display_name)
    if log.exit_code is None:
        log.fault = "checker ended without finishing"
    log.checker_output = pair.checker.output_tail if pair.checker is not None else ""
    return log, worker_facts


def _pass_jobs(
    judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, skipped: tuple[str, ...], parked: bool = False
) -> tuple[WorkerLaunch, JobSpec]:
    """The pass's worker and checker jobs; parked: started ahead of the learner's file, which they are given later
    (judge.grading.parking), so neither holds the file, its name, the shard's costs or a deadline yet."""
    problem, settings, limits = judgement.problem, runtime.settings, judgement.limits
    checker = JobSpec(
        target="judge.checker.run:main",
        wall_s=limits.wall_s + CHECKER_GRACE_S,
        output_bytes=4 << 20,
        threads=settings.worker_threads,
        env=dict(step.env),
        parked_s=PARKED_S if parked else 0.0,
        payload=CheckerPayload(
            deadline=0.0 if parked else time.time() + limits.wall_s,
            meta=problem.meta.model_dump(mode="json"),
            display_name="" if parked else judgement.display_name,
            root=str(problem.root),
            test_files=tuple(str(p) for p in problem.test_files(judgement.mode)),
            run_tiers=tuple(step.run_tiers),
            skip_tiers=tuple(skipped),
            source="" if parked else judgement.source,
            shard=judgement.shard,
            costs={} if parked else dict(runtime.costs),
            parked=parked,
        ).to_wire(),
    )
    worker = launch(judgement, settings, dict(step.env))
    if parked:
        worker = replace(worker, source="", display_name="", parked_s=PARKED_S)
    return worker, checker


def _parks(judgement: Judgement, runtime: Runtime, step: tier_plans.Pass) -> bool:
    """Runs on this host's own runner are what a learner repeats while editing: their pairs are parked."""
    return runtime.parking is not None and judgement.mode == "run" and step.runner == tier_plans.LOCAL


def _park_key(judgement: Judgement, step: tier_plans.Pass, skipped: tuple[str, ...]) -> Hashable:
    """What a parked pair was started for: everything about its jobs except the learner's file."""
    problem = judgement.problem
    env = tuple(sorted(step.env.items()))
    return (problem.id, problem.digest, judgement.mode, judgement.shard, step.runner, env, step.run_tiers, skipped)


def _park_next(
    judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, skipped: tuple[str, ...], split: int
) -> None:
    """Start the next Run's pairs now, parked, while the learner reads this one's report."""
    if runtime.parking is None or runtime.cancelled() or not _parks(judgement, runtime, step):
        return

    def starts() -> dict[Hashable, Callable[[], StartedPair]]:  # made in the parking's thread, not this Run's
        parts = [judgement.part(k, split) for k in range(split)] if split > 1 else [judgement]
        return {_park_key(part, step, skipped): start(part) for part in parts}

    def start(part: Judgement) -> Callable[[], StartedPair]:
        worker, checker = _pass_jobs(part, runtime, step, skipped, parked=True)
        return lambda: start_pair(runtime.runners(step.runner), runtime.checker_zygote, worker, checker)

    runtime.parking.park(starts)


def _split_pass(shards: int, run: Callable[[int], tuple[CheckerLog, JobFacts]]) -> list[tuple[CheckerLog, JobFacts]]:
    """run(k) for every shard k at once, each on a thread of its own (each waits on its own processes); the results
    in shard order. A shard that raised raises here once every shard has ended."""
    with ThreadPoolExecutor(shards, thread_name_prefix="judge-shard") as pool:
        futures = [pool.submit(run, k) for k in range(shards)]
        results = [future.result() for future in futures]
    printed = [k for k, (_log, facts) in enumerate(results) if facts.output_tail]
    if len(printed) > 1:  # each worker imported the file (its prints twice): say whose output is whose
        for k in printed:
            results[k][1].output_tail = f"── {k + 1}/{shards} ──\n" + results[k][1].output_tail
    return results


def merge(results: list[tuple[CheckerLog, JobFacts]]) -> tuple[CheckerLog, JobFacts]:
    """One log and one set of worker facts from several passes (the worst of each fact)."""
    if len(results) == 1:
        return results[0]
    log, facts = CheckerLog(), JobFacts()
    for part, seen in results:
        log.collected += part.collected
        log.finished.update(part.finished)
        log.started += part.started
        log.import_error, log.import_message = (
            log.import_error or part.import_error,
            log.import_message or part.import_message,
        )
        log.collect_errors += part.collect_errors
        log.exit_code = part.exit_code if log.exit_code in (None, 0) else log.exit_code
        log.fault = "; ".join(filter(None, (log.fault, part.fault)))
        log.checker_output += part.checker_output
        log.flags |= part.flags
        log.trace_requests.update(part.trace_requests)
        log.stuck = log.stuck or part.stuck
        facts = _worse(facts, seen)
    return log, facts


def _weaker_layers(kept: dict[str, str], seen: dict[str, str]) -> dict[str, str]:
    """Per layer, what the least isolated pass got: a judgement is only as walled as its weakest pass."""
    merged = dict(kept)
    for name, state in seen.items():
        if merged.get(name, "active") == "active":
            merged[name] = state
    return merged


def _worse(kept: JobFacts, seen: JobFacts) -> JobFacts:
    abnormal = seen.signal is not None or seen.exit_code not in (None, 0)
    return JobFacts(
        exit_code=seen.exit_code if abnormal or kept.exit_code is None else kept.exit_code,
        signal=kept.signal if kept.signal is not None else seen.signal,
        timed_out=kept.timed_out or seen.timed_out,
        memory_exceeded=kept.memory_exceeded or seen.memory_exceeded,
        output_exceeded=kept.output_exceeded or seen.output_exceeded,
        wall_s=kept.wall_s + seen.wall_s,
        peak_memory_mib=max(filter(None, (kept.peak_memory_mib, seen.peak_memory_mib)), default=None),
        output_tail=(kept.output_tail + seen.output_tail)[-(64 << 10) :],
        layers=_weaker_layers(kept.layers, seen.layers),
        setup_s=kept.setup_s or seen.setup_s,
        sandbox_error=kept.sandbox_error or seen.sandbox_error,
        leftover_processes=max(kept.leftover_processes, seen.leftover_processes),
    )
