"""Your own input (judge try, the page's Try panel): the learner's operator and the reference, each in a worker of its
own, called on an input the learner wrote, compared in the trusted checker.

Three pairs, one after the other, each through run_pair like every pass: the input builder (a worker that imports the
module made from the learner's input, with no learner file and no reference beside it), the reference (cached by
problem, reference and input, as the op trace's are) and the learner's file. Each worker runs under the problem's
limits, as a Run's does. Nothing here judges: a Try has no verdict and touches no hidden case.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from judge.checker.events import read_lines
from judge.grading.judgement import Judgement, Runtime
from judge.grading.pair import PairResult, launch, run_pair
from judge.grading.precheck import compile_failure
from judge.grading.tracing import REFERENCE_NAME
from judge.problem.trying import INPUT_NAME, ProblemTry, TryInput, TryOp, builder_source, parse_input
from judge.report.catalog import say
from judge.report.i18n import Text
from judge.report.trying import TRY_EVENT, Built, Compared, Failed, Observed, TryEvent, TryResult
from judge.runners import plan as tier_plans
from sandbox import JobFacts, JobSpec

E = TypeVar("E", Built, Observed, Compared, Failed)
INPUT_PROBES = Path(__file__).resolve().parents[1] / "worker" / "tryinputs.py"
CHECKER_GRACE_S = 5.0  # the checker outlives its worker's limit by this much, to tell what happened
MAX_EVENT_LINE = 4 << 20
MAX_CACHED = 32  # each holds the reference's output on one input (a few hundred KiB at most)
_cached: OrderedDict[str, Observed] = OrderedDict()
_lock = threading.Lock()


def try_input(judgement: Judgement, warm: Callable[[], Runtime], text: str) -> TryResult:
    """The learner's file (the judgement's source) and the reference on the input `text`: JudgeError (in both
    languages) when the exercise offers no Try or the input cannot be read; else a TryResult, whatever happened.
    `warm` gives the Judge's runtime (its zygotes started), asked for only once there is something to run."""
    problem = judgement.problem
    name, op, parsed = parse_input(text, ProblemTry(problem).require())
    started = time.monotonic()
    failure = compile_failure(judgement.source, judgement.display_name)  # at once, as a judgement does
    if failure is not None:
        message, line = failure.message, failure.line
        return TryResult(problem=problem.id, op=name, status="import_error", message=message, line=line)
    runtime = warm()
    step = tier_plans.plan(problem.meta, runtime.settings).passes[0]  # the CPU pass: its runner and environment
    result = _try(judgement, runtime, step, name, op, parsed)
    result.duration_s = time.monotonic() - started
    return result


def _try(
    judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, name: str, op: TryOp, parsed: TryInput
) -> TryResult:
    result = TryResult(problem=judgement.problem.id, op=name, status="internal", message=say("try.internal"))
    source, owners = builder_source(op, parsed)
    builder = replace(judgement, source=source, display_name=INPUT_NAME)
    built = _pair(builder, runtime, step, ("build", {"args": op.args, "owners": owners}), INPUT_PROBES)
    input_event = _first(built.read, Built)
    if input_event is None:
        failed = _first(built.read, Failed)
        limited = _limit(built.worker, judgement)
        message = failed.message if failed else limited or say("try.not_built", why="?")
        return result.model_copy(update={"status": "input_error", "message": message})
    result.input = input_event.values
    call = {"probe": op.probe, "frame": input_event.frame}
    theirs = _reference(judgement, runtime, step, call)
    if theirs is None:
        return result
    result.reference = theirs.values
    if theirs.raised is not None:
        message = say("try.reference_raised", error=theirs.raised)
        return result.model_copy(update={"status": "reference_raised", "message": message})
    reference = {"frame": theirs.frame, "trace": theirs.trace.model_dump() if theirs.trace else None}
    tolerances = {k: [t.rtol, t.atol] for k, t in judgement.problem.meta.tolerances.items()}
    mine = _pair(judgement, runtime, step, ("observe", {**call, "reference": reference, "tolerances": tolerances}))
    result.output = mine.worker.output_tail
    return _learners(result, mine, judgement)


def _learners(result: TryResult, mine: PairResult[list[TryEvent]], judgement: Judgement) -> TryResult:
    """The result as the learner's pair left it: an import failure, a limit, what their code raised, or the two
    outputs compared."""
    failed, observed, compared = _first(mine.read, Failed), _first(mine.read, Observed), _first(mine.read, Compared)
    if failed is not None:
        return result.model_copy(update={"status": "import_error", "message": failed.message, "line": failed.line})
    limited = _limit(mine.worker, judgement)
    if limited is not None:
        return result.model_copy(update={"status": "limit", "message": limited})
    if observed is None:
        if mine.checker is None or mine.checker.exit_code not in (0, None):
            return result  # the checker's own fault: an internal result
        # the worker ended without answering, within its limits (the learner's code exited, or killed itself)
        code = mine.worker.signal or mine.worker.exit_code
        return result.model_copy(update={"status": "limit", "message": say("try.crashed", code=code)})
    update: dict[str, Any] = {"yours": observed.values}
    if observed.raised is not None:
        update.update(status="raised", message=observed.raised, line=observed.line)
    elif compared is not None:
        same = all(d.same for d in compared.differences)
        update.update(
            status="same" if same else "differs",
            message=say("try.same" if same else "try.differs", n=sum(not d.same for d in compared.differences)),
            differences=compared.differences,
            op_trace=compared.op_trace,
        )
    return result.model_copy(update=update)


def _limit(facts: JobFacts, judgement: Judgement) -> Text | None:
    limits = judgement.limits
    if facts.timed_out:
        return say("try.time_limit", s=limits.wall_s)
    if facts.memory_exceeded:
        return say("try.memory_limit", m=limits.memory_mib)
    if facts.output_exceeded:
        return say("try.output_limit", k=limits.output_kib)
    if facts.signal is not None or facts.exit_code not in (0, None):
        return say("try.crashed", code=facts.signal or facts.exit_code)
    return None


def _reference(judgement: Judgement, runtime: Runtime, step: tier_plans.Pass, call: dict[str, str]) -> Observed | None:
    """The reference's output on the built input: cached by problem, reference, probes and input."""
    problem = judgement.problem
    if not problem.reference_path.is_file():
        return None
    source = problem.reference_path.read_text(encoding="utf-8")
    digest = hashlib.sha256()
    for part in (problem.id, problem.probes_path.read_text(encoding="utf-8"), source, call["probe"], call["frame"]):
        digest.update(part.encode("utf-8") + b"\0")
    key = digest.hexdigest()
    with _lock:
        if key in _cached:
            _cached.move_to_end(key)
            return _cached[key]
    reference = replace(judgement, source=source, display_name=REFERENCE_NAME)
    seen = _first(_pair(reference, runtime, step, ("observe", {**call, "role": "reference"})).read, Observed)
    if seen is not None:
        with _lock:
            _cached[key] = seen
            while len(_cached) > MAX_CACHED:
                _cached.popitem(last=False)
    return seen


def _pair(
    judgement: Judgement,
    runtime: Runtime,
    step: tier_plans.Pass,
    target: tuple[str, dict[str, Any]],
    probes: Path | None = None,
) -> PairResult[list[TryEvent]]:
    """One worker on the judgement's source (with the problem's probes, or `probes`) and one checker running
    judge.checker.trying:<target[0]> with payload target[1], under the problem's limits."""
    entry, payload = target
    wall_s = judgement.limits.wall_s
    checker = JobSpec(
        target=f"judge.checker.trying:{entry}",
        wall_s=wall_s + CHECKER_GRACE_S,
        output_bytes=1 << 20,
        threads=runtime.settings.worker_threads,
        env=dict(step.env),
        payload={**payload, "deadline": time.time() + wall_s, "display_name": judgement.display_name},
    )
    worker = launch(judgement, runtime.settings, dict(step.env))
    if probes is not None:
        worker = replace(worker, probes_path=probes)
    read: Callable[[socket.socket], list[TryEvent]] = _events
    return run_pair(runtime.runners(step.runner), runtime.checker_zygote, worker, checker, read, runtime.cancel)


def _events(sock: socket.socket) -> list[TryEvent]:
    try:
        return list(read_lines(sock, TRY_EVENT, MAX_EVENT_LINE))
    except (ValidationError, ValueError):  # a checker line that is not one of ours: nothing from it is shown
        return []


def _first(events: list[TryEvent], kind: type[E]) -> E | None:
    return next((event for event in events if isinstance(event, kind)), None)
