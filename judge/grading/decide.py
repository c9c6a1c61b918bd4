"""Pure decision: what the checker reported and what the sandbox saw -> a Report."""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.checker.events import CollectedCase, ImportProblem, TraceRequest
from judge.grading.precheck import import_block
from judge.grading.stuck import Stuck
from judge.problem.tiers import SKIPPED
from judge.report.catalog import say
from judge.report.i18n import Text
from judge.report.models import CaseResult, Mode, Outcome, Report, RunInfo, Verdict
from sandbox.base import EXIT_LAYER, EXIT_TAMPERED, JobFacts


@dataclass
class CheckerLog:
    """Everything the checker told the judge about one judgement."""

    collected: list[CollectedCase] = field(default_factory=list)  # in collection order
    finished: dict[str, CaseResult] = field(default_factory=dict)  # by pytest node id
    started: list[str] = field(default_factory=list)  # node ids, in the order the checker started them
    import_error: ImportProblem | None = None
    import_message: Text = field(default_factory=Text)  # the checker's headline of an import failure
    collect_errors: list[str] = field(default_factory=list)
    exit_code: int | None = None
    fault: str = ""  # an infrastructure fault seen by the judge
    checker_output: str = ""  # what pytest printed, for diagnosing faults
    skipped_tiers: tuple[str, ...] = ()  # tiers with no runner here: their cases are skipped
    flags: set[str] = field(default_factory=set)  # the checker's flags for instructors (computed-declaration)
    trace_requests: dict[str, TraceRequest] = field(default_factory=dict)  # failing public cases' calls, by node id
    stuck: Stuck | None = None  # the learner's line the worker was running when its time limit hit (stuck.py)


def ran_cases(log: CheckerLog, cases: list[CaseResult]) -> list[CaseResult]:
    """The cases the verdict covers: all but those skipped because their tier (GPU) has no runner here."""
    return [
        case
        for case, meta in zip(cases, log.collected)
        if not (meta.tier in log.skipped_tiers and case.outcome == Outcome.skipped)
    ]


def tiers_of(log: CheckerLog) -> dict[str, str]:
    return {
        tier: "skipped" if tier in log.skipped_tiers else "ran"
        for tier in dict.fromkeys(meta.tier for meta in log.collected)
    }


def weighted_score(ran: list[CaseResult]) -> float:
    """The passed cases' share of the weight of the cases that ran (@pytest.mark.weight, default 1 each)."""
    total = sum(c.weight for c in ran)
    return round(sum(c.weight for c in ran if c.outcome == Outcome.passed) / total, 4) if total else 0.0


# The summary of each limit verdict, and of the same limit hit while the file was still importing.
LIMIT_MESSAGES = {
    Verdict.memory_limit_exceeded: ("summary.memory", "import.memory"),
    Verdict.time_limit_exceeded: ("summary.time", "import.time"),
    Verdict.output_limit_exceeded: ("summary.output", "import.output"),
    Verdict.runtime_error: ("summary.runtime", "import.lost"),
}


def _worker_verdicts(facts: JobFacts | None, lost: bool) -> list[Verdict]:
    if facts is None:
        return []
    found = []
    if facts.memory_exceeded:
        found.append(Verdict.memory_limit_exceeded)
    if facts.timed_out:
        found.append(Verdict.time_limit_exceeded)
    if facts.output_exceeded:
        found.append(Verdict.output_limit_exceeded)
    if (lost and not found) or _tampered(facts):
        found.append(Verdict.runtime_error)
    return found


def _tampered(facts: JobFacts | None) -> bool:
    """The worker found, when its session ended, that the submission changed the dispatcher's table
    (judge.worker.registrations): nothing the checker saw is believed."""
    return facts is not None and facts.exit_code == EXIT_TAMPERED


def _how(facts: JobFacts | None) -> Text:
    if facts is None:
        return say("how.unknown")
    if facts.signal is not None:
        return say("how.signal", signal=facts.signal)
    return say("how.exit", code=facts.exit_code)


def _internal_fault(log: CheckerLog, worker: JobFacts | None) -> str:
    if log.fault:
        return log.fault
    if worker is not None and (worker.sandbox_error or worker.exit_code == EXIT_LAYER):
        return f"the sandbox could not isolate the worker: {worker.sandbox_error or 'exit 87'}"
    if log.collect_errors:
        return "the problem's tests failed to collect: " + log.collect_errors[0][:500]
    if not log.collected:
        return "the checker collected no test cases"
    if len(log.finished) < len(log.collected) and not (worker is not None and worker.timed_out):
        # (after a time limit the checker may be stopped mid-case: the cases it never reported were never run)
        return f"the checker reported {len(log.finished)} of {len(log.collected)} cases"
    if log.exit_code not in (0, 1):
        return f"pytest ended with exit code {log.exit_code}"
    return ""


def decide(
    problem_id: str,
    mode: Mode,
    log: CheckerLog,
    worker: JobFacts | None,
    limits: dict[str, float],
    source: str = "",
    memory_hint: Text | None = None,
) -> Report:
    """source: the learner's file, to show the line an import failure points at. memory_hint: what exceeding the
    memory limit means in this exercise (problem.toml's `[limits] memory_hint`), after that verdict's summary."""
    cases = [
        log.finished.get(c.id)
        or CaseResult(name=c.name, hidden=c.hidden, outcome=Outcome.error, message=say("case.unreported"))
        for c in log.collected
    ]
    lost = (any(c.outcome == Outcome.error for c in cases) and log.import_error is None) or _import_lost(log)
    if worker is not None and worker.timed_out and not _import_lost(log):
        _mark_time_limit(cases, log, limits, source)
    fault = _internal_fault(log, worker)
    for case, meta in zip(cases, log.collected):
        case.weight = meta.weight
    ran = ran_cases(log, cases)
    passed = sum(c.outcome == Outcome.passed for c in ran)
    verdicts = _worker_verdicts(worker, lost)
    if fault:
        verdicts.append(Verdict.internal_error)
    if log.import_error is not None and not _import_lost(log):
        verdicts.append(Verdict.compile_error)
    if passed < len(ran):
        verdicts.append(Verdict.wrong_answer)
    verdict = Verdict.worst(verdicts) if verdicts else Verdict.accepted
    if verdict == Verdict.accepted and (not ran or passed != len(ran)):
        verdict = Verdict.internal_error  # accepting needs positive evidence
    detail = f"{fault}\n{log.checker_output[-3000:]}" if fault else ""
    return Report(
        problem=problem_id,
        verdict=verdict,
        mode=mode,
        cases=cases,
        passed=passed,
        total=len(cases),
        score=weighted_score(ran),
        tiers=tiers_of(log),
        message=_summary(verdict, mode, log, worker, limits, source, memory_hint),
        detail=detail,
        run=worker or RunInfo(),
        tampered=any(c.tampered for c in cases) or _tampered(worker),
        flags=sorted(log.flags),
        error_line=log.import_error.line if verdict == Verdict.compile_error and log.import_error else None,
    )


def _mark_time_limit(cases: list[CaseResult], log: CheckerLog, limits: dict[str, float], source: str = "") -> None:
    """The case that was running when the time ran out gets the limit's message; those after it were never run.

    The running case is the first, in the order the checker started them, that never ended or ended in error
    (the worker was killed under it); every later case the checker ran against the dead worker, or not at all."""
    by_id = {meta.id: case for meta, case in zip(log.collected, cases)}
    order = list(dict.fromkeys([*log.started, *by_id]))  # started ones first, then those never started
    running = next((i for i in order if i in by_id and by_id[i].outcome == Outcome.error), None)
    if running is None:
        return
    by_id[running].outcome, by_id[running].message = Outcome.error, say("case.time_limit", **limits)
    if log.stuck is not None and not by_id[running].hidden:  # a hidden case's line could carry its input out
        by_id[running].message = _with_stuck(by_id[running].message, log.stuck, source)
        by_id[running].line = log.stuck.line
    for later in order[order.index(running) + 1 :]:
        case = by_id.get(later)
        if case is not None and case.outcome == Outcome.error:
            case.outcome, case.message = Outcome.skipped, say("case.after_time_limit")


def _with_stuck(message: Text, stuck: Stuck, source: str) -> Text:
    """The message, then the learner's line that was running when the time ran out, with its code."""
    lines = source.splitlines()
    code = lines[stuck.line - 1].strip()[:120] if 0 < stuck.line <= len(lines) else ""
    where = say("time.stuck_at", line=stuck.line, function=stuck.function, code=code or "…")
    return Text(zh=f"{message.zh}；{where.zh}", en=f"{message.en}; {where.en}")


def _import_lost(log: CheckerLog) -> bool:
    """The worker never answered the handshake: the file did not finish importing (a limit hit, or it exited)."""
    return log.import_error is not None and log.import_error.lost


def _summary(
    verdict: Verdict,
    mode: Mode,
    log: CheckerLog,
    worker: JobFacts | None,
    limits: dict[str, float],
    source: str,
    memory_hint: Text | None = None,
) -> Text:
    if verdict == Verdict.internal_error:
        return say("internal_error")
    if verdict == Verdict.runtime_error and _tampered(worker):
        return say("summary.tampered_table")
    if verdict == Verdict.compile_error:
        error = log.import_error or ImportProblem()
        return import_block(log.import_message, error.type, error.line, source, message=error.message)
    ids = LIMIT_MESSAGES.get(verdict)
    if ids:
        # The exit status is the submission's to choose: once hidden tests ran it could carry their data out
        # (while importing, no test has run yet).
        how = _how(worker) if mode == "run" or _import_lost(log) else say("how.hidden")
        summary = say(ids[_import_lost(log)], how=how, **limits)
        if verdict == Verdict.time_limit_exceeded and _import_lost(log) and log.stuck is not None:
            summary = _with_stuck(summary, log.stuck, source)  # no test ran yet: no input to carry out
        if verdict == Verdict.memory_limit_exceeded and memory_hint is not None:
            summary = Text(zh=f"{summary.zh}。{memory_hint.zh}", en=f"{summary.en}. {memory_hint.en}")
        return summary
    if verdict == Verdict.wrong_answer:
        return say("summary.wrong_answer")
    if SKIPPED in tiers_of(log).values():  # the verdict covers the tiers that ran: say the rest is still to do
        return say("summary.accepted_cpu_tier")
    return say("summary.accepted")


def only_skipped_tiers(log: CheckerLog) -> tuple[str, ...]:
    """The skipped tiers, when every collected case belongs to one of them (nothing here could judge the file):
    the judge refuses to answer rather than accept without evidence or call it its own fault."""
    if not log.collected or not log.skipped_tiers or log.fault or log.collect_errors or log.import_error:
        return ()
    if all(meta.tier in log.skipped_tiers for meta in log.collected):
        return tuple(dict.fromkeys(meta.tier for meta in log.collected))
    return ()
