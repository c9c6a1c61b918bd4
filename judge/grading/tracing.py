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
from dataclasses import dataclass, field

from judge.checker import events as checker_events
from judge.checker.events import TraceRequest
from judge.grading.decide import CheckerLog
from judge.problem.folders import Problem
from judge.report.models import Outcome
from judge.report.optrace import OpTrace, Trace
from judge.runners import Runner, WorkerLaunch
from sandbox import JobSpec, ZygoteClient

log = logging.getLogger("judge.grading.tracing")

TRACE_WALL_S = 15.0  # one trace pass: a few probe calls that already ran once in the judgement
REFERENCE_NAME = "reference.py"
MAX_CACHED = 256
_cached: OrderedDict[str, Trace] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Place:
    """Where the trace workers and checkers run: the verdict's CPU pass's runner, with its environment."""

    runner: Runner
    checker_zygote: ZygoteClient
    threads: int = 1
    env: dict[str, str] = field(default_factory=dict)
    skip_layers: tuple[str, ...] = ()


def attach_traces(problem: Problem, source: str, checked: CheckerLog, display_name: str, place: Place) -> None:
    """Give each failing public case whose probe call the checker kept an op trace (CaseResult.op_trace).

    A trace that cannot be made (no reference, a worker that does not answer) is left out, said in the log."""
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
        reference = problem.reference_path.read_text(encoding="utf-8")
        keys = {case_id: _key(problem, reference, call) for case_id, call in calls.items()}
        with _lock:  # judgements run in threads (the web's pool, batch's jobs): one reads while another evicts
            theirs = {case_id: _cached[key] for case_id, key in keys.items() if key in _cached}
        ours = _traces(problem, source, display_name, calls, place)
        missing = {case_id: call for case_id, call in calls.items() if case_id in ours and case_id not in theirs}
        if missing:
            fresh = _traces(problem, reference, REFERENCE_NAME, missing, place)
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
    problem: Problem, source: str, display_name: str, calls: dict[str, TraceRequest], place: Place
) -> dict[str, Trace]:
    """One worker on `source`, one checker sending it `calls` with trace (judge.checker.tracing)."""
    checker_end, worker_end = socket.socketpair()
    events_in, events_out = socket.socketpair()
    limits = problem.meta.limits
    worker = place.runner.start(
        WorkerLaunch(
            source=source,
            probes_path=problem.probes_path,
            display_name=display_name,
            wall_s=TRACE_WALL_S,
            memory_bytes=limits.memory_mib << 20,
            output_bytes=limits.output_kib << 10,
            threads=place.threads,
            env=dict(place.env),
            hide=(str(problem.root.parent),),
            skip_layers=place.skip_layers,
        ),
        worker_end.fileno(),
    )
    traces: dict[str, Trace] = {}
    try:
        worker_end.close()
        checker = place.checker_zygote.run(
            JobSpec(
                target="judge.checker.tracing:main",
                wall_s=TRACE_WALL_S + 5,
                output_bytes=1 << 20,
                threads=place.threads,
                env=dict(place.env),
                payload={
                    "deadline": time.time() + TRACE_WALL_S,
                    "calls": [{"id": case_id, "probe": c.probe, "frame": c.frame} for case_id, c in calls.items()],
                },
            ),
            [checker_end.fileno(), events_out.fileno()],
        )
        checker_end.close()
        events_out.close()
        with events_in:
            for event in checker_events.read_events(events_in):
                if isinstance(event, checker_events.Traced) and event.id in calls:
                    traces[event.id] = event.trace
        checker.wait()
        if worker.wait(timeout=5) is None:
            worker.kill()
            worker.wait()
    finally:
        worker.close()
    return traces
