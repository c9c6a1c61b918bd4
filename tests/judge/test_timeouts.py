"""On a time limit the case that was running is named, the cases never run are skipped, the verdict stays TLE."""

from judge.checker.events import CollectedCase, ImportProblem
from judge.grading.decide import CheckerLog, decide
from judge.grading.stuck import Stuck, find_stuck
from judge.report.models import CaseResult, Outcome, Verdict
from sandbox.base import JobFacts

LIMITS = {"memory": 2048, "wall": 30, "output": 1024}
TIMED_OUT = JobFacts(signal=9, timed_out=True, wall_s=30.4)


def log_of(*outcomes: str | None, hidden: tuple[int, ...] = (), started: int | None = None) -> CheckerLog:
    """One case per outcome (None: never reported); the first `started` cases were started (default: reported)."""
    log = CheckerLog(exit_code=1)
    for i, outcome in enumerate(outcomes):
        case_id = f"t.py::case{i}"
        log.collected.append(CollectedCase(id=case_id, name=f"case{i}", hidden=i in hidden))
        if outcome is not None:
            log.finished[case_id] = CaseResult(name=f"case{i}", outcome=Outcome(outcome), hidden=i in hidden)
    count = started if started is not None else sum(o is not None for o in outcomes)
    log.started = [c.id for c in log.collected[:count]]
    return log


def outcomes(report):
    return [(c.outcome.value, c.message.en) for c in report.cases]


def test_the_running_case_gets_the_limit_and_the_later_ones_are_skipped():
    # the checker outlived the worker: the running case and every later one ended in error against a dead worker
    report = decide(
        "1", "submit", log_of("passed", "failed", "error", "error", "error", hidden=(4,)), TIMED_OUT, LIMITS
    )
    assert report.verdict == Verdict.time_limit_exceeded
    got = outcomes(report)
    assert got[:2] == [("passed", ""), ("failed", "")]
    assert got[2][0] == "error" and "allows 30 s" in got[2][1] and "this test was running" in got[2][1]
    assert got[3:] == [("skipped", "not run: the time limit was reached earlier")] * 2
    assert "30 秒" in report.cases[2].message.zh and "之前已经达到时间限制" in report.cases[4].message.zh
    assert report.passed == 1 and report.total == 5


def test_a_case_started_but_never_reported_is_the_running_one():
    # the checker itself was stopped: the last started case never ended, the rest never started
    report = decide("1", "run", log_of("passed", None, None, started=2), TIMED_OUT, LIMITS)
    assert report.verdict == Verdict.time_limit_exceeded
    got = outcomes(report)
    assert got[1][0] == "error" and "this test was running" in got[1][1]
    assert got[2] == ("skipped", "not run: the time limit was reached earlier")


def test_without_a_time_limit_a_lost_worker_keeps_its_errors():
    lost = JobFacts(signal=11, wall_s=2.0)
    report = decide("1", "run", log_of("passed", "error", "error"), lost, LIMITS)
    assert report.verdict == Verdict.runtime_error
    assert [c.outcome for c in report.cases] == [Outcome.passed, Outcome.error, Outcome.error]


def test_a_file_that_timed_out_while_importing_is_left_to_the_import_summary():
    log = log_of("error", "error")
    log.import_error = ImportProblem(lost=True)
    report = decide("1", "submit", log, TIMED_OUT, LIMITS)
    assert report.verdict == Verdict.time_limit_exceeded and "did not finish importing" in report.message.en
    assert all(c.outcome == Outcome.error and "time limit" not in c.message.en for c in report.cases)


# ---------------------------------------------------------------- the learner's line at the limit (judge.grading.stuck)

STACK = """Timeout (0:00:29)!
Thread 0x00007f0000000001 (most recent call first):
  File "/usr/lib/python3.11/site-packages/torch/_ops.py", line 1279 in __call__
  File "100.py", line 14 in kv_write
  File "100.py", line 30 in helper
  File "/job/probes.py", line 80 in kv_write_eager

"""
SOURCE = "\n".join(f"line_{n} = {n}" for n in range(1, 40))


def test_the_stack_names_the_innermost_line_of_the_learners_file():
    stuck = find_stuck(STACK, "100.py")
    assert stuck == Stuck(line=14, function="kv_write")
    assert find_stuck("no stack here\n", "100.py") is None
    other = find_stuck(STACK, "other.py")  # only frames of the learner's own file are named
    assert other is None


def test_a_public_running_case_names_the_line_and_a_hidden_one_does_not():
    log = log_of("passed", "error", "error", hidden=(2,))
    log.stuck = Stuck(line=14, function="kv_write")
    report = decide("1", "run", log, TIMED_OUT, LIMITS, source=SOURCE)
    assert "running line 14 (in kv_write) when the time ran out: line_14 = 14" in report.cases[1].message.en
    assert "第 14 行（kv_write 中）" in report.cases[1].message.zh and report.cases[1].line == 14
    hidden = log_of("passed", "passed", "error", hidden=(2,))
    hidden.stuck = Stuck(line=14, function="kv_write")
    report = decide("1", "submit", hidden, TIMED_OUT, LIMITS, source=SOURCE)
    assert "line 14" not in report.cases[2].message.en and report.cases[2].line is None


def test_an_import_that_timed_out_names_its_line_in_the_summary():
    log = log_of(None, None)
    log.import_error = ImportProblem(lost=True)
    log.stuck = Stuck(line=3, function="<module>")
    report = decide("1", "submit", log, TIMED_OUT, LIMITS, source=SOURCE)
    assert report.verdict == Verdict.time_limit_exceeded
    assert "did not finish importing" in report.message.en and "running line 3 (in <module>)" in report.message.en
