"""One judgement: scratch folder, a worker and a checker wired together, events relayed, facts decided."""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
from pathlib import Path

from judge.checker.events import read_events
from judge.decide import CheckerLog, decide
from judge.events import CaseFinished, Collected, Done, EventSink
from judge.models import CaseResult, Report
from judge.problems import Problem
from judge.settings import Settings
from sandbox import JobSpec, ZygoteClient
from sandbox.host import LAYERS

CHECKER_GRACE_S = 30  # the checker outlives the worker's limit by this much to report every case


def grade_once(problem: Problem, source: str, mode: str, worker_zygote: ZygoteClient, checker_zygote: ZygoteClient,
               display_name: str, settings: Settings, on_event: EventSink | None) -> Report:
    emit = on_event or (lambda event: None)
    limits = problem.meta.limits
    scratch = Path(tempfile.mkdtemp(prefix="pj-"))
    try:
        (scratch / "solution.py").write_text(source, encoding="utf-8")
        shutil.copy(problem.probes_path, scratch / "probes.py")
        deadline = time.time() + limits.wall_s
        checker_end, worker_end = socket.socketpair()
        events_in, events_out = socket.socketpair()
        worker = worker_zygote.run(JobSpec(
            target="judge.worker.main:serve", wall_s=limits.wall_s, memory_bytes=limits.memory_mib << 20,
            output_bytes=limits.output_kib << 10, workdir=str(scratch), isolate=True, threads=settings.worker_threads,
            hide=[str(problem.root.parent)], skip=skipped_layers(settings),
            # No native code of the learner's own: a library it compiled and loaded would run below the
            # worker's guard (judge/worker/guard.py). Probes compile with aot_eager, which writes no code.
            scratch_exec=False,
            payload={"solution_path": str(scratch / "solution.py"), "probes_path": str(scratch / "probes.py"),
                     "display_name": display_name}), [worker_end.fileno()])
        worker_end.close()
        checker = checker_zygote.run(JobSpec(
            target="judge.checker.run:main", wall_s=limits.wall_s + CHECKER_GRACE_S, output_bytes=4 << 20,
            threads=settings.worker_threads,
            payload={"deadline": deadline, "meta": problem.meta.model_dump(mode="json"),
                     "display_name": display_name, "root": str(problem.root),
                     "test_files": [str(p) for p in problem.test_files(mode)]}),
            [checker_end.fileno(), events_out.fileno()])
        checker_end.close()
        events_out.close()
        log = _relay(events_in, emit)
        events_in.close()
        checker_facts = checker.wait()
        worker_facts = worker.wait(timeout=10) or _kill_and_wait(worker)
        if log.exit_code is None:
            log.fault = "checker ended without finishing"
        log.checker_output = checker_facts.output_tail
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report = decide(problem.id, mode, log, worker_facts,
                    {"memory": limits.memory_mib, "wall": limits.wall_s, "output": limits.output_kib})
    emit(Done(verdict=report.verdict))
    return report


def skipped_layers(settings: Settings) -> list[str]:
    """isolation="none" keeps only what protects the host's own resources (limits), for debugging."""
    if settings.isolation == "none":
        return [name for name in LAYERS if name not in ("memory", "pids", "cpu", "rlimits")]
    return []


def _kill_and_wait(job):
    job.kill()
    return job.wait()


def _relay(sock: socket.socket, emit: EventSink) -> CheckerLog:
    """Read checker events into a log, passing learner-safe ones on to the caller."""
    log, hidden_no = CheckerLog(), 0
    for event in read_events(sock):
        kind = event.get("type")
        if kind == "collected":
            log.collected = event["cases"]
            emit(Collected(total=len(log.collected)))
        elif kind == "import_error":
            log.import_error, log.import_message = event["error"], event["message"]
        elif kind == "collect_error":
            log.collect_errors.append(event["detail"])
        elif kind == "case_finished":
            case = CaseResult(name=event["name"], hidden=event["hidden"], outcome=event["outcome"],
                              message=event["message"], hint=event.get("hint") or {}, detail=event["detail"],
                              duration_s=event["duration_s"])
            log.finished[event["id"]] = case
            hidden_no += case.hidden
            emit(CaseFinished.of(case, len(log.finished), len(log.collected), hidden_no))
        elif kind == "finished":
            log.exit_code = event["exit_code"]
    return log
