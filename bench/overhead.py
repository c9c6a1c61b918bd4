"""Where a warm Run's time goes: exercise 100's public checks called directly, against a warm Judge.grade(mode="run").

  direct       in this process, no sandbox, channel or pytest: the reference imported once, then every probe
               call that 100's public tests make (recorded from one pytest pass), called straight on it
  in pytest    the same public tests under pytest in this process, probes called straight (no worker):
               pytest's own time is this minus the time spent inside the probes and the checks
  judge        a warm Judge.grade(reference, mode="run"), median of N: worker and checker started from
               warm zygotes, the learner's file imported behind the guard, each probe over the channel; with
               this machine's cores, the Run's tests split over that many worker/checker pairs (judge.checker.shards)
  one pair     the same with PRACTICE_RUN_WORKERS=1: every test in one worker and one checker

The breakdown of the judge's time: sandbox setup (worker start), learner import (measured here), per case the
probe time here against the case's time in the judge, pytest's own time, and what is left (checker start,
collection, arming the guard, the channel, the decision), on one pair. Aim: judge <= 1.5 x direct (issue 38; 2.5 was
issue 28's). With the CPU seconds every process of the judge used per Run (from /proc): steadier than wall times on a
shared machine, and on a small one what a Run's time is made of.
Prints numbers and ratios, asserts nothing. Run from anywhere: python bench/overhead.py [--runs 9]
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pytest

from judge import Judge
from judge.checker.errors import LearnerError
from judge.report.models import Verdict
from judge.settings import Settings

PROBLEM = "100"


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Direct:
    """pytest fixtures `remote`, `probe` and `problem` that call the probes on the imported file in this process,
    recording each call and its time, and each test's time."""

    def __init__(self, probes: ModuleType, solution: ModuleType, meta: Any):
        self.probes, self.solution, self.meta = probes, solution, meta
        self.calls: list[tuple[str, str, tuple[Any, ...], dict[str, Any], float]] = []  # test, probe, args, kw, s
        self.tests: dict[str, float] = {}
        self.current = ""

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = copy.deepcopy((args, kwargs))  # as the channel does: a probe never mutates the test's own
        self.calls.append((self.current, name, args, kwargs, 0.0))
        args, kwargs = copy.deepcopy((args, kwargs))  # the recorded copy stays as the test passed it
        started = time.perf_counter()
        try:
            return getattr(self.probes, name)(self.solution, *args, **kwargs)
        except Exception as exc:
            raise LearnerError(type(exc).__name__, str(exc), None) from exc
        finally:
            test, probe, call_args, call_kwargs, _ = self.calls[-1]
            self.calls[-1] = (test, probe, call_args, call_kwargs, time.perf_counter() - started)

    @pytest.fixture(scope="session")
    def remote(self) -> Any:
        direct = self

        class Remote:
            def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
                return direct._call(name, *args, **kwargs)

        return Remote()

    @pytest.fixture(scope="session")
    def probe(self) -> Any:
        def call(name: str, *args: Any, hint: object = None, **kwargs: Any) -> Any:
            return self._call(name, *args, **kwargs)

        return call

    @pytest.fixture(scope="session")
    def problem(self) -> Any:
        return self.meta

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        self.current = item.name
        started = time.perf_counter()
        try:
            return (yield)
        finally:
            self.tests[item.name] = time.perf_counter() - started


def cpu_seconds() -> float | None:
    """CPU seconds used so far by this process and its children with theirs (the zygotes, and every job they
    reaped): read from /proc, so None where there is none. A shared VM's wall times drift by a third from run to
    run; CPU seconds drift far less, and on a machine whose cores a Run keeps busy they are what its time is made of."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    me = os.getpid()
    own = os.times()
    total = own.user + own.system
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:  # ppid; then utime, stime, cutime, cstime (fields 14-17 of proc(5))
            total += sum(int(value) for value in fields[11:15]) / tick
    return total


def quiet(share: float = 0.1, window_s: float = 0.1, bound_s: float = 5.0) -> None:
    """Wait (untimed) until the machine's cores were busy less than `share` of a `window_s` window, within
    `bound_s`: a parked worker may still be preparing when its checker says it is ready, and neither side of the
    ratio should pay for that. /proc/stat's first line; nothing to wait on without it."""

    def busy_idle() -> tuple[int, int] | None:
        try:
            fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return sum(fields) - idle, idle

    deadline = time.monotonic() + bound_s
    before = busy_idle()
    while before is not None and time.monotonic() < deadline:
        time.sleep(window_s)
        after = busy_idle()
        if after is None:
            return
        busy, idle = after[0] - before[0], after[1] - before[1]
        if busy + idle > 0 and busy / (busy + idle) < share:
            return
        before = after


def warm_runs(
    judge: Judge, source: bytes, runs: int, paced: bool = True, between: Callable[[], float] | None = None
) -> tuple[float, Any, float | None]:
    """The median (seconds, report) of `runs` warm Runs of `source`, after one that warms (not counted), and the
    CPU seconds per Run of every process of the judge's (None without /proc), the parked pairs' starts included.

    paced: before each Run, wait (untimed) until the pairs the judge parked after the last one are ready
    (judge.grading.parking), as they are after a learner's edit; else back to back, each Run's start competing
    with the parking of the pairs it then takes. between: run (untimed) just before each Run, returning the CPU
    seconds of this process's that it used, which the Runs' CPU seconds leave out: the direct checks, measured
    in the same seconds as the judge, so that a shared machine's drift moves both alike."""
    with judge:
        first = judge.grade(PROBLEM, source, mode="run")
        if first.verdict != Verdict.accepted:
            print(f"warning: the reference got {first.verdict.value}", file=sys.stderr)
        reports = []
        cpu_before, between_cpu = cpu_seconds(), 0.0
        for _ in range(runs):
            if paced:
                judge.settle()
                quiet()
            if between is not None:
                between_cpu += between()
            started = time.perf_counter()
            report = judge.grade(PROBLEM, source, mode="run")
            reports.append((time.perf_counter() - started, report))
        cpu_after = cpu_seconds()
    cpu = (cpu_after - cpu_before - between_cpu) / runs if cpu_before is not None and cpu_after is not None else None
    seconds, report = sorted(reports, key=lambda r: r[0])[len(reports) // 2]
    return seconds, report, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    judge = Judge()
    problem = judge.problem(PROBLEM)
    import torch  # noqa: F401 - imported before anything is timed, as in the zygotes

    probes = load("probes", problem.probes_path)
    started = time.perf_counter()
    solution = load("solution", problem.reference_path)
    import_s = time.perf_counter() - started

    direct = Direct(probes, solution, problem.meta)
    started = time.perf_counter()
    code = pytest.main(
        [
            str(problem.tests_dir / "test_public.py"),
            "-q",
            "-p",
            "no:logging",
            "-W",
            "ignore",
            "-c",
            str(REPO / "judge" / "checker" / "pytest.ini"),
        ],
        plugins=[direct],
    )
    in_pytest_s = time.perf_counter() - started
    if code != 0:
        print(f"warning: the public tests did not pass in this process (pytest exit {code})", file=sys.stderr)
    recorded = list(direct.calls)
    checks_s = sum(direct.tests.values())  # probes and the tests' own checks, inside test bodies

    direct_runs: list[float] = []  # the recorded probe calls again, straight: what the checks cost, no harness
    direct_cpu: list[float] = []

    def direct_pass() -> float:
        """One pass of the direct checks, timed; returns the CPU seconds it used, its copies included."""
        cpu_before = time.process_time()
        fresh = copy.deepcopy([(name, call_args, kwargs) for _test, name, call_args, kwargs, _s in recorded])
        started, cpu_started = time.perf_counter(), time.process_time()
        for name, call_args, kwargs in fresh:
            getattr(probes, name)(solution, *call_args, **kwargs)
        direct_runs.append(time.perf_counter() - started)
        direct_cpu.append(time.process_time() - cpu_started)
        return time.process_time() - cpu_before

    for _ in range(2):  # their first calls after pytest's pass, not counted
        direct_pass()
    direct_runs.clear()
    direct_cpu.clear()
    source = problem.reference_path.read_bytes()
    # Each direct pass just before a parked Run: the ratio's two sides measured in the same seconds.
    judge_s, report, judge_cpu = warm_runs(judge, source, args.runs, between=direct_pass)
    direct_s = statistics.median(direct_runs) + import_s
    direct_cpu_s = statistics.median(direct_cpu) + import_s
    back_to_back_s, _report, _cpu = warm_runs(Judge(), source, args.runs, paced=False)
    unparked_s, _report, unparked_cpu = warm_runs(Judge(Settings(park=False)), source, args.runs)
    one_pair_s, one_pair, one_pair_cpu = warm_runs(Judge(Settings(run_workers=1, park=False)), source, args.runs)

    per_test: dict[str, float] = defaultdict(float)
    for test, _name, _a, _k, seconds in recorded:
        per_test[test] += seconds
    cases_s = sum(c.duration_s for c in one_pair.cases)
    setup_s = one_pair.run.setup_s or 0.0
    pairs = min(Settings().run_workers, os.cpu_count() or 1)
    print(f"exercise {PROBLEM}, Run ({len(report.cases)} public cases), median of {args.runs}")
    print(f"  direct (import + probes)      {direct_s:6.2f} s   (import {import_s:.2f} s; passes between the Runs)")
    print(f"  in pytest, no worker          {in_pytest_s:6.2f} s   (pytest's own: {in_pytest_s - checks_s:.2f} s)")
    print(f"  warm Judge.grade(mode='run')  {judge_s:6.2f} s   ({pairs} worker/checker pairs at once, parked)")
    print(f"  the same, back to back        {back_to_back_s:6.2f} s   (no pause for the parking between Runs)")
    print(f"  the same, nothing parked      {unparked_s:6.2f} s   (PRACTICE_PARK=0: each Run starts its pairs)")
    print(f"  one pair, nothing parked      {one_pair_s:6.2f} s   (PRACTICE_RUN_WORKERS=1 PRACTICE_PARK=0)")
    print(
        f"  judge / direct = {judge_s / direct_s:.2f}   (aim <= 1.5, issue 38; back to back: "
        f"{back_to_back_s / direct_s:.2f}; nothing parked: {unparked_s / direct_s:.2f}; one pair: "
        f"{one_pair_s / direct_s:.2f})"
    )
    if judge_cpu is not None and one_pair_cpu is not None and unparked_cpu is not None:
        print(
            f"CPU seconds per Run, every process of the judge's (the next Run's parked pairs included):"
            f" {judge_cpu:.2f} on {pairs} pairs, parked; {unparked_cpu:.2f} with nothing parked;"
            f" {one_pair_cpu:.2f} on one pair; direct {direct_cpu_s:.2f}"
        )
        ratio, one = judge_cpu / direct_cpu_s, one_pair_cpu / direct_cpu_s
        unparked = unparked_cpu / direct_cpu_s
        print(f"  judge CPU / direct CPU = {ratio:.2f}   (nothing parked: {unparked:.2f}; one pair: {one:.2f})")
    print("breakdown of the one-pair judge's time:")
    print(f"  sandbox setup (worker start)  {setup_s:6.2f} s")
    print(f"  learner import (here)         {import_s:6.2f} s")
    print(f"  cases in the judge            {cases_s:6.2f} s   (probes here: {sum(per_test.values()):.2f} s)")
    print(f"  pytest's own (here)           {in_pytest_s - checks_s:6.2f} s")
    rest = one_pair_s - setup_s - import_s - cases_s
    print(f"  rest: checker start, collection, arming, channel, decision {rest:6.2f} s")
    print("per case, one pair: judge (probe + channel + check) vs probes here")
    for case in one_pair.cases:
        here = per_test.get(case.name, 0.0)
        print(f"  {case.name:<58} {case.duration_s:6.3f} s  {here:6.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
