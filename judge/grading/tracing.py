"""The trace pass: failing public cases' probe calls traced again, on the learner's file and on the reference.

Runs after the verdict's passes, in workers of their own, one after the other (a runner with one slot still
serves both): nothing it does reaches a verdict or a score. The reference's traces are cached by what they
depend on, so a class failing the same public case starts one reference worker, not one each.
"""

from __future__ import annotations

import hashlib
import logging
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import replace

from judge.checker import events as checker_events
from judge.checker.events import TraceRequest
from judge.grading.decide import CheckerLog
from judge.grading.judgement import Judgement, Runtime
from judge.grading.pair import launch, run_pair
from judge.problem.folders import Problem
from judge.report.models import Outcome
from judge.report.optrace import OpTrace, Trace
from judge.runners import plan as tier_plans
from sandbox import JobSpec

log = logging.getLogger("judge.grading.tracing")

TRACE_WALL_S = 15.0  # one trace pass: a few probe calls that already ran once in the judgement
REFERENCE_NAME = "reference.py"
MAX_CACHED = 256
_cached: OrderedDict[str, Trace] = OrderedDict()
_lock = threading.Lock()


def attach_traces(judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, checked: CheckerLog) -> None:
    """Give each failing public case whose probe call the checker kept an op trace (CaseResult.op_trace), traced
    on `step`'s runner (the verdict's CPU pass's) in that pass's environment.

    A trace that cannot be made (no reference, a worker that does not answer) is left out, said in the log."""
    problem = judgement.problem
    calls = {
        case_id: call
        for case_id, call in checked.trace_requests.items()
        if case_id in checked.finished
        and checked.finished[case_id].outcome == Outcome.failed
        and not checked.finished[case_id].hidden
    }
    if not calls or not problem.reference_path.is_file() or not problem.probes_path.is_file():
        return
    try:
        reference_source = problem.reference_path.read_text(encoding="utf-8")
        reference = replace(judgement, source=reference_source, display_name=REFERENCE_NAME)
        keys = {case_id: _key(problem, reference_source, call) for case_id, call in calls.items()}
        with _lock:  # judgements run in threads (the web's pool, batch's jobs): one reads while another evicts
            theirs = {case_id: _cached[key] for case_id, key in keys.items() if key in _cached}
        ours = _traces(judgement, runtime, step, calls)
        missing = {case_id: call for case_id, call in calls.items() if case_id in ours and case_id not in theirs}
        if missing:
            fresh = _traces(reference, runtime, step, missing)
            theirs.update(fresh)
            with _lock:
                for case_id, trace in fresh.items():
                    _cached[keys[case_id]] = trace
                while len(_cached) > MAX_CACHED:
                    _cached.popitem(last=False)
    except Exception:
        log.exception("op trace of exercise %s failed", problem.id)
        return
    for case_id, call in calls.items():
        if case_id in ours and case_id in theirs:
            checked.finished[case_id].op_trace = OpTrace.compare(call.probe, ours[case_id], theirs[case_id])


def _key(problem: Problem, reference: str, call: TraceRequest) -> str:
    digest = hashlib.sha256()
    for part in (problem.id, problem.probes_path.read_text(encoding="utf-8"), reference, call.probe, call.frame):
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()


def _traces(
    judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, calls: dict[str, TraceRequest]
) -> dict[str, Trace]:
    """One worker on the judgement's file, one checker sending it `calls` with trace (judge.checker.tracing)."""
    checker = JobSpec(
        target="judge.checker.tracing:main",
        wall_s=TRACE_WALL_S + 5,
        output_bytes=1 << 20,
        threads=runtime.settings.worker_threads,
        env=dict(step.env),
        payload={
            "deadline": time.time() + TRACE_WALL_S,
            "calls": [{"id": case_id, "probe": c.probe, "frame": c.frame} for case_id, c in calls.items()],
        },
    )

    def read(events: socket.socket) -> dict[str, Trace]:
        return {
            event.id: event.trace
            for event in checker_events.read_events(events)
            if isinstance(event, checker_events.Traced) and event.id in calls
        }

    worker = launch(judgement, runtime.settings, dict(step.env), wall_s=TRACE_WALL_S)
    pair = run_pair(runtime.runners(step.runner), runtime.checker_zygote, worker, checker, read, worker_grace_s=5)
    return pair.read
