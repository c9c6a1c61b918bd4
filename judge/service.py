"""Judge: the one entry point every front end calls (CLI, web, batch)."""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from judge.errors import JudgeError
from judge.flags import source_flags, tamper_flags
from judge.grading.judgement import Judgement, Runtime
from judge.grading.parking import Parking
from judge.grading.passes import grade_once
from judge.grading.precheck import compile_failure, not_compiled
from judge.grading.trying import try_input
from judge.problem.folders import Problem, ProblemSet, require_needs
from judge.problem.hints import attach_hints
from judge.report.catalog import say
from judge.report.events import EventSink
from judge.report.i18n import Lang
from judge.report.models import Mode, Report, internal_error
from judge.report.trying import TryResult
from judge.runners import Runner, canary
from judge.runners import plan as tier_plans
from judge.runners.base import WORKER_PRELOAD
from judge.runners.make import make_runner
from judge.settings import Settings
from judge.versions import judge_versions
from sandbox import ZygoteClient
from sandbox.client import fork_unsafe

log = logging.getLogger("judge.service")
_SCANS = ThreadPoolExecutor(1, thread_name_prefix="judge-flags")  # source_flags beside each judgement
CHECKER_PRELOAD = ["torch", "torch._dynamo", "pytest", "judge.checker.run", "judge.checker.warmup"]


class Judge:
    """Grades submissions; keeps two warm parents (zygotes) alive between calls."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings()
        self.problem_set = ProblemSet(self.settings.problems_dir)
        self._zygotes: tuple[ZygoteClient, ZygoteClient] | None = None
        self._lock = threading.Lock()
        self._runners: dict[str, Runner] = {}  # by key of judge.runners.plan; local ones wrap the worker zygote
        self._runner_lock = threading.Lock()
        self._in_flight = 0  # judgements running now: a Run is split over pairs only when it is alone
        self._costs: dict[str, dict[str, float]] = {}  # problem id -> case id -> seconds, from the last Run
        self._parking: Parking | None = None  # the next Run's pairs, started ahead (judge.grading.parking)
        self._versions: dict[str, str] | None = None

    def problems(self) -> list[Problem]:
        return self.problem_set.all()

    def problem(self, problem_id: str) -> Problem:
        return self.problem_set.get(problem_id)

    def judgement(
        self,
        problem_id: str,
        source_code: str | bytes,
        mode: Mode = "submit",
        display_name: str | None = None,
        lang: Lang = "zh",
    ) -> Judgement:
        """What a front end asks to have judged, checked: JudgeError (in both languages) for an unknown problem, a
        mode that is not one, a file Python would not read, one over the limits, a package the problem needs."""
        problem = self.problem(problem_id)
        if self.settings.sandbox != "docker":  # a container image brings its own packages
            require_needs(problem)
        return Judgement.of(problem, source_code, mode, display_name, lang, self.settings.max_source_bytes)

    def grade(
        self,
        problem_id: str,
        source_code: str | bytes,
        mode: Mode = "submit",
        on_event: EventSink | None = None,
        display_name: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Report:
        """Judge one submission. Learner mistakes become verdicts; only bad requests raise JudgeError.

        cancel: setting it stops the judgement at once (its report then says nothing useful; the caller drops it)."""
        return self.run(self.judgement(problem_id, source_code, mode, display_name), on_event, cancel)

    def run(
        self, judgement: Judgement, on_event: EventSink | None = None, cancel: threading.Event | None = None
    ) -> Report:
        """Judge a Judgement (made by `judgement()`), as `grade()` does."""
        problem, mode = judgement.problem, judgement.mode
        started = time.monotonic()
        failure = compile_failure(judgement.source, judgement.display_name)  # at once: no worker, no torch import
        # The source's own flags (a scan of its syntax tree, a few ms) while the sandbox judges, not after.
        scanned = _SCANS.submit(source_flags, judgement.source)
        if failure is not None:
            report = not_compiled(problem.id, mode, failure, on_event)
        else:
            with self._lock:
                self._in_flight += 1
                alone = self._in_flight == 1
            try:
                report = self._grade_in_sandbox(judgement, on_event, cancel, alone)
            finally:
                with self._lock:
                    self._in_flight -= 1
        report.duration_s = round(time.monotonic() - started, 3)
        attach_hints(problem, report.cases)  # the hint ladder of each check that did not pass (feedback only)
        report.versions = self.versions()
        report.problem_digest = problem.digest
        # For instructors: constructs to look at, tampering, and the grading's own (a GPU tier with native code).
        report.flags = sorted(set(scanned.result()) | set(tamper_flags(report)) | set(report.flags))
        return report

    def _grade_in_sandbox(
        self,
        judgement: Judgement,
        on_event: EventSink | None,
        cancel: threading.Event | None = None,
        alone: bool = False,
    ) -> Report:
        problem, mode = judgement.problem, judgement.mode
        # A Run alone on this judge uses the idle cores: its tests split over pairs that judge at once.
        shards = min(self.settings.run_workers, os.cpu_count() or 1) if alone and mode == "run" else 1
        try:
            runtime = Runtime(
                runners=self._runner,
                checker_zygote=self._warm(),
                settings=self.settings,
                cancel=cancel,
                on_runner_fault=self._discard_runner,  # a GPU runner's fault: that runner only
                shards=shards,
                costs=self._costs.setdefault(problem.id, {}),
                parking=self._parking,
            )
            return grade_once(judgement, runtime, on_event)
        except JudgeError:
            raise
        except Exception as exc:  # noqa: BLE001 - any judge fault becomes an internal_error report, never a crash
            self._discard_zygotes()
            return internal_error(problem.id, mode, f"{type(exc).__name__}: {exc}", what="judge")

    def try_input(
        self, problem_id: str, source_code: str | bytes, input_text: str, display_name: str | None = None
    ) -> TryResult:
        """Run the learner's operator and the reference on an input the learner wrote (judge.grading.trying): no
        verdict, only public behaviour. JudgeError for a bad request (no Try here, an input that does not read)."""
        judgement = self.judgement(problem_id, source_code, "run", display_name)

        def runtime() -> Runtime:
            return Runtime(runners=self._runner, checker_zygote=self._warm(), settings=self.settings)

        try:
            return try_input(judgement, runtime, input_text)
        except JudgeError:
            raise
        except Exception:  # a fault of the judge's is an internal result, never a crash (and said in the log)
            log.exception("a Try of exercise %s failed", problem_id)
            self._discard_zygotes()
            return TryResult(problem=judgement.problem.id, op="", status="internal", message=say("try.internal"))

    def versions(self) -> dict[str, str]:
        """What this judge's reports name as having produced them: read once (the code it runs is what it loaded)."""
        if self._versions is None:
            self._versions = judge_versions()
        return dict(self._versions)

    def warm(self) -> Judge:
        """Start the warm parents now (seconds), so that the first judgement does not pay for them.

        A configured GPU runner starts too, and runs its canary (judge.runners.canary)."""
        self._warm()
        key = tier_plans.gpu_runner(self.settings)
        if key is not None:
            try:
                canary.status(self._runner(key))
            except Exception:  # noqa: BLE001 - a runner that cannot start is unavailable; judgements say why
                pass
        return self

    def _warm(self) -> ZygoteClient:
        """The checker zygote, with the local runner's worker zygote started beside it."""
        with self._lock:
            if self._zygotes is None or not all(z.alive for z in self._zygotes):
                self._discard_zygotes()
                spawn = not self.settings.zygotes or fork_unsafe()  # spawn: no warm parent, a fresh process per job
                zygotes = (
                    ZygoteClient(WORKER_PRELOAD, "worker-zygote", spawn).start(),
                    ZygoteClient(CHECKER_PRELOAD, "checker-zygote", spawn).start(),
                )
                try:
                    for zygote in zygotes:  # both import torch at once, on separate cores
                        zygote.wait_ready()
                except BaseException:  # not ready in time: stop both, or each retry leaves two more importing torch
                    for zygote in zygotes:
                        zygote.close()
                    raise
                self._zygotes = zygotes
                self._parking = Parking() if self.settings.park else None
            return self._zygotes[1]

    def runner(self, key: str) -> Runner:
        """The warm runner for a key of judge.runners.plan, with the zygotes started (`judge doctor`'s canary)."""
        self._warm()
        return self._runner(key)

    def _runner(self, key: str) -> Runner:
        """The warm runner for a tier plan's key (judge.runners.plan), started on first use."""
        with self._runner_lock:
            runner = self._runners.get(key)
            if runner is None or not runner.alive:
                if runner is not None:
                    runner.close()
                if self._zygotes is None:  # every caller warms first; a runner without its zygote is a bug here
                    raise RuntimeError("the judge's zygotes were not started before its runners")
                runner = self._runners[key] = make_runner(key, self.settings, self._zygotes[0])
            return runner

    def _discard_runner(self, key: str) -> None:
        """One runner failed for a reason of the host: close it alone; the zygotes and other runners go on."""
        with self._runner_lock:
            runner = self._runners.pop(key, None)
        if runner is not None:
            runner.close()

    @property
    def parking(self) -> Parking | None:
        """The next Run's parked pairs (None: parking is off, or no judgement has started the zygotes yet)."""
        return self._parking

    def settle(self, timeout: float = 30.0) -> bool:
        """Wait until the pairs parked for the next Run are ready (a benchmark's pause between Runs)."""
        return self._parking.settle(timeout) if self._parking is not None else True

    def _discard_zygotes(self) -> None:
        if self._parking is not None:
            self._parking.close()
            self._parking = None
        if self._zygotes is not None:
            for zygote in self._zygotes:
                zygote.close()
            self._zygotes = None
        with self._runner_lock:
            runners, self._runners = self._runners, {}
        for runner in runners.values():
            runner.close()

    def close(self) -> None:
        with self._lock:
            self._discard_zygotes()

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
