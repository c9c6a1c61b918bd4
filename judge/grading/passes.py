"""One judgement: a worker started through its runner, a checker wired to it, events relayed, facts decided.

A problem with tiers may take two passes (CPU tier on the CPU runner, GPU tier on a GPU runner); their
case logs and worker facts are merged before the one decision.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from judge.checker import events as checker_events
from judge.errors import CannotJudgeHere
from judge.grading import hostfault
from judge.grading.decide import CheckerLog, decide, only_skipped_tiers
from judge.grading.stuck import find_stuck
from judge.grading.tracing import Place, attach_traces
from judge.problem.folders import Problem
from judge.report.catalog import say
from judge.report.events import CaseFinished, CaseStarted, Collected, Done, EventSink
from judge.report.i18n import Text
from judge.report.models import CaseResult, Mode, Report
from judge.runners import Runner, WorkerLaunch
from judge.runners import plan as tier_plans
from judge.runners.base import WorkerRun
from judge.settings import Settings
from judge.wire.jobs import CheckerPayload
from sandbox import JobFacts, JobSpec, ZygoteClient
from sandbox.client import Job, ZygoteDied
from sandbox.host import LAYERS

CHECKER_GRACE_S = 30  # the checker outlives the worker's limit by this much to report every case


def grade_once(
    problem: Problem,
    source: str,
    mode: Mode,
    runners: Callable[[str], Runner],
    checker_zygote: ZygoteClient,
    display_name: str,
    settings: Settings,
    on_event: EventSink | None,
    cancel: threading.Event | None = None,
    on_runner_fault: Callable[[str], None] | None = None,
    shards: int = 1,
    costs: dict[str, float] | None = None,
) -> Report:
    """runners(key) gives the warm runner named by the problem's tier plan (judge.runners.plan).

    cancel: set by a front end (the page's Cancel) to kill the pass's worker and checker at once.
    on_runner_fault(key): a GPU runner failed for a reason of the host; discard that runner only.
    shards: pairs a Run on the local runner is split over, judging at once (judge.checker.shards); costs: seconds per
    case id from earlier judgements of the problem, which balance the split and are updated from this one."""
    emit = on_event or (lambda event: None)
    # A GPU runner that fails its canary is unavailable: its tier is still to be judged (judge.grading.hostfault).
    plan, _unavailable = hostfault.gate(tier_plans.plan(problem.meta, settings), runners)
    gpu = hostfault.GpuPasses(runners, on_runner_fault or (lambda key: None))
    relay = Relay(emit)
    split = shards if mode == "run" and len(plan.passes) == 1 and plan.passes[0].runner == tier_plans.LOCAL else 1

    def one_pass(step: tier_plans.Pass, shard: tuple[int, int] = (0, 1)) -> Callable[[], tuple[CheckerLog, JobFacts]]:
        """The pass (or its shard), started when called: its runner is taken inside the GPU passes' fault handling."""
        return lambda: _one_pass(
            problem,
            source,
            mode,
            runners(step.runner),
            checker_zygote,
            display_name,
            settings,
            step,
            plan.skipped,
            relay,
            cancel,
            shard,
            costs,
        )

    if split > 1:
        results = _split_pass(split, lambda shard: one_pass(plan.passes[0], shard)())
    else:
        results = [gpu.run(step, one_pass(step)) for step in plan.passes if cancel is None or not cancel.is_set()]
    log, worker_facts = merge(results)
    if split > 1 and len(log.collected) != relay.total:  # every shard's cases, each once, or no verdict from them
        log.fault = "; ".join(filter(None, (log.fault, f"shards collected {len(log.collected)} of {relay.total}")))
    if costs is not None:
        costs.update((case_id, case.duration_s) for case_id, case in log.finished.items() if not case.hidden)
    log.skipped_tiers = plan.skipped
    if log.trace_requests and plan.passes and (cancel is None or not cancel.is_set()):
        first = plan.passes[0]  # the CPU tier's pass where there is one: the traced probes run on CPU tensors
        skip = tuple(skipped_layers(settings))
        place = Place(runners(first.runner), checker_zygote, settings.worker_threads, dict(first.env), skip)
        attach_traces(problem, source, log, display_name, place)
    if only_skipped_tiers(log):  # every case needs a runner this judge lacks: refuse, as for a missing package
        raise CannotJudgeHere(say("tiers.needs_gpu_runner", id=problem.id))
    limits = problem.meta.limits
    report = decide(
        problem.id,
        mode,
        log,
        worker_facts,
        {"memory": limits.memory_mib, "wall": limits.wall_s, "output": limits.output_kib},
        source=source,
        memory_hint=Text(zh=limits.memory_hint.zh, en=limits.memory_hint.en) if limits.memory_hint else None,
    )
    report = gpu.finish(report)  # a GPU tier's host fault, each tier's own layers
    emit(Done(verdict=report.verdict))
    return report


def _one_pass(
    problem: Problem,
    source: str,
    mode: Mode,
    runner: Runner,
    checker_zygote: ZygoteClient,
    display_name: str,
    settings: Settings,
    step: tier_plans.Pass,
    skipped: tuple[str, ...],
    relay: Relay,
    cancel: threading.Event | None = None,
    shard: tuple[int, int] = (0, 1),
    costs: dict[str, float] | None = None,
) -> tuple[CheckerLog, JobFacts]:
    limits = problem.meta.limits
    deadline = time.time() + limits.wall_s
    checker_end, worker_end = socket.socketpair()
    events_in, events_out = socket.socketpair()
    worker = runner.start(
        WorkerLaunch(
            source=source,
            probes_path=problem.probes_path,
            display_name=display_name,
            wall_s=limits.wall_s,
            memory_bytes=limits.memory_mib << 20,
            output_bytes=limits.output_kib << 10,
            threads=settings.worker_threads,
            env=dict(step.env),
            hide=(str(problem.root.parent),),
            skip_layers=tuple(skipped_layers(settings)),
        ),
        worker_end.fileno(),
    )
    try:
        worker_end.close()
        checker = checker_zygote.run(
            JobSpec(
                target="judge.checker.run:main",
                wall_s=limits.wall_s + CHECKER_GRACE_S,
                output_bytes=4 << 20,
                threads=settings.worker_threads,
                env=dict(step.env),
                payload=CheckerPayload(
                    deadline=deadline,
                    meta=problem.meta.model_dump(mode="json"),
                    display_name=display_name,
                    root=str(problem.root),
                    test_files=tuple(str(p) for p in problem.test_files(mode)),
                    run_tiers=tuple(step.run_tiers),
                    skip_tiers=tuple(skipped),
                    source=source,
                    shard=shard,
                    costs=dict(costs or {}),
                ).to_wire(),
            ),
            [checker_end.fileno(), events_out.fileno()],
        )
        checker_end.close()
        events_out.close()
        stop = _kill_on(cancel, worker, checker)
        try:
            log = relay.read(events_in)
            events_in.close()
            checker_facts = checker.wait()
            worker_facts = worker.wait(timeout=10) or _kill_and_wait(worker)
        finally:
            stop.set()
        if worker_facts.timed_out:
            log.stuck, worker_facts.output_tail = find_stuck(worker_facts.output_tail, display_name)
    finally:
        worker.close()
    if log.exit_code is None:
        log.fault = "checker ended without finishing"
    log.checker_output = checker_facts.output_tail if checker_facts is not None else ""
    return log, worker_facts


def _split_pass(
    shards: int, run: Callable[[tuple[int, int]], tuple[CheckerLog, JobFacts]]
) -> list[tuple[CheckerLog, JobFacts]]:
    """run((k, shards)) for every shard at once, each on a thread of its own (each waits on its own processes);
    the results in shard order. A shard that raised raises here once every shard has ended."""
    with ThreadPoolExecutor(shards, thread_name_prefix="judge-shard") as pool:
        futures = [pool.submit(run, (k, shards)) for k in range(shards)]
        results = [future.result() for future in futures]
    printed = [k for k, (_log, facts) in enumerate(results) if facts.output_tail]
    if len(printed) > 1:  # each worker imported the file (its prints twice): say whose output is whose
        for k in printed:
            results[k][1].output_tail = f"── {k + 1}/{shards} ──\n" + results[k][1].output_tail
    return results


def skipped_layers(settings: Settings) -> list[str]:
    """isolation="none" keeps only what protects the host's own resources (limits), for debugging."""
    if settings.isolation == "none":
        return [name for name in LAYERS if name not in ("memory", "pids", "cpu", "rlimits")]
    return []


def _kill_on(cancel: threading.Event | None, *jobs: Job | WorkerRun) -> threading.Event:
    """Kill the jobs as soon as `cancel` is set, until the returned event ends the watch (the pass is over)."""
    ended = threading.Event()
    if cancel is not None:

        def watch() -> None:
            while not ended.is_set():
                if cancel.wait(0.2):
                    for job in jobs:
                        job.kill()
                    return

        threading.Thread(target=watch, name="judge-cancel", daemon=True).start()
    return ended


def _kill_and_wait(job: WorkerRun) -> JobFacts:
    job.kill()
    facts = job.wait()
    if facts is None:  # not without a timeout: WorkerRun.wait raises past its bound instead
        raise ZygoteDied("the worker was killed and its end never reported")
    return facts


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


class Relay:
    """Reads checker events into a log per pass, passing learner-safe ones on; counts run on across passes."""

    def __init__(self, emit: EventSink):
        self.emit, self.total, self.done, self.hidden_no = emit, 0, 0, 0
        self.lock = threading.Lock()  # the shards of a split Run are read on threads of their own, at once
        self.told_among = False  # a split Run's count of cases has been told (every shard's checker sends it)
        self.told_hidden = False  # hidden cases are announced once, as a phase: no per-case timing leaves
        # Every event about a hidden case is held until the hidden pass ends, then released together: when
        # each one finished would tell a client how long the submission took on that hidden input.
        self.held: list[CaseFinished] = []

    def read(self, sock: socket.socket) -> CheckerLog:
        log = CheckerLog()
        try:
            self._read(sock, log)
        finally:
            with self.lock:
                self._release()  # the pass is over (or its checker is gone): the hidden cases' events go out now
        return log

    def _release(self) -> None:
        held, self.held = self.held, []
        for event in held:
            self.emit(event)

    def _read(self, sock: socket.socket, log: CheckerLog) -> None:
        for event in checker_events.read_events(sock):
            with self.lock:
                self._handle(event, log)

    def _handle(self, event: checker_events.CheckerEvent, log: CheckerLog) -> None:
        match event:
            case checker_events.Collected():
                log.collected = event.cases
                if not event.among:
                    self.total += len(log.collected)
                    self.emit(Collected(total=self.total))
                elif not self.told_among:  # the first shard to collect tells the whole Run's count, once
                    self.told_among = True
                    self.total += event.among
                    self.emit(Collected(total=self.total))
            case checker_events.ImportFailed():
                log.import_error, log.import_message = event.error, event.message
            case checker_events.CollectError():
                log.collect_errors.append(event.detail)
            case checker_events.CaseStarted():
                log.started.append(event.id)
                self._started(event)
            case checker_events.CaseEnded():
                self._finished(log, event)
            case checker_events.Flagged():
                log.flags.update(event.flags)  # for instructors only: nothing of it reaches the learner
            case checker_events.Finished():
                log.exit_code = event.exit_code

    def _started(self, event: checker_events.CaseStarted) -> None:
        if not event.hidden:
            self._release()  # a public case after hidden ones: the hidden pass before it has ended
            self.emit(CaseStarted(name=event.name))
        elif not self.told_hidden:
            self.told_hidden = True
            self.emit(CaseStarted(hidden=True))

    def _finished(self, log: CheckerLog, event: checker_events.CaseEnded) -> None:
        case = CaseResult(
            name=event.name,
            hidden=event.hidden,
            outcome=event.outcome,
            message=event.message,
            hint=event.hint,
            detail=event.detail,
            duration_s=event.duration_s,
            tampered=event.tampered,
            line=event.line,
        )
        log.finished[event.id] = case
        if event.trace_request is not None and not event.hidden:
            log.trace_requests[event.id] = event.trace_request
        self.done += 1
        self.hidden_no += case.hidden
        finished = CaseFinished.of(case, self.done, self.total, self.hidden_no)
        if case.hidden:
            self.held.append(finished)
        else:
            self._release()
            self.emit(finished)
