"""Judge faults retried once then kept as internal_error (exit 1); Ctrl-C leaves consistent outputs; re-runs resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge.batch.grade import EXIT_INTERNAL, EXIT_INTERRUPTED, grade_class
from judge.report.models import Fault, Report, Verdict
from tests.batch.conftest import REFERENCE, WRONG, read_grades, read_reports, write_tree
from tests.batch.test_grade import CountingJudge

REPO = Path(__file__).resolve().parents[2]


class FaultyJudge(CountingJudge):
    """The real judge, except that the first `faults` judgements end in a retryable fault of the judge."""

    def __init__(self, judge, faults: int):
        super().__init__(judge)
        self.faults = faults

    def grade(self, problem_id, source, **kwargs):
        self.calls += 1
        if self.calls <= self.faults:
            return Report(
                problem=problem_id,
                verdict=Verdict.internal_error,
                score=0,
                passed=0,
                total=0,
                detail="ZygoteDied: worker-zygote is not reachable",
                fault=Fault(what="sandbox", retryable=True),
            )
        return self.inner.grade(problem_id, source, **kwargs)


@pytest.mark.slow  # judges real submissions end to end
def test_a_retryable_fault_is_judged_again(fixture_judge, fixture_settings, tmp_path):
    judge = FaultyJudge(fixture_judge, faults=1)
    status = grade_class(
        "900",
        write_tree(tmp_path / "class", {"alice.py": REFERENCE}),
        tmp_path / "out",
        fixture_settings,
        jobs=1,
        judge=judge,
        stream=open(tmp_path / "log", "w"),
    )
    assert status == 0 and judge.calls == 2
    row = read_grades(tmp_path / "out")["alice"]
    assert row["verdict"] == "accepted" and "judged again" in row["note"]


def test_a_fault_twice_is_internal_error_exit_1_and_never_cached(fixture_judge, fixture_settings, tmp_path):
    classroom = write_tree(tmp_path / "class", {"alice.py": REFERENCE, "bob.py": WRONG})
    judge = FaultyJudge(fixture_judge, faults=2)
    status = grade_class(
        "900", classroom, tmp_path / "out", fixture_settings, jobs=1, judge=judge, stream=open(tmp_path / "log", "w")
    )
    assert status == EXIT_INTERNAL
    verdicts = sorted(r["verdict"] for r in read_grades(tmp_path / "out").values())
    assert verdicts.count("internal_error") == 1 and len(verdicts) == 2  # the other student still has a row
    again = CountingJudge(fixture_judge)
    assert (
        grade_class(
            "900",
            classroom,
            tmp_path / "out",
            fixture_settings,
            jobs=1,
            judge=again,
            stream=open(tmp_path / "log", "w"),
        )
        == 0
    )
    assert again.calls == 1  # only the faulted one: the other came from the cache


def _consistent(out: Path) -> set[str]:
    """Every output names the same students; returns them."""
    students = set(read_grades(out))
    assert set(read_reports(out)) == students
    assert {p.stem for p in (out / "feedback").glob("*.md")} == students
    assert {p.parent.name for p in (out / "gradescope").glob("*/results.json")} == students
    return students


@pytest.mark.slow  # judges real submissions end to end
def test_ctrl_c_from_a_hook_leaves_consistent_outputs_and_a_rerun_resumes(fixture_judge, fixture_settings, tmp_path):
    names = [f"s{i}" for i in range(5)]
    classroom = write_tree(tmp_path / "class", {f"{n}.py": REFERENCE + f"\n# {n}\n" for n in names})
    seen = []

    def stop_after_two(row):
        seen.append(row.student)
        if len(seen) == 2:
            raise KeyboardInterrupt

    status = grade_class(
        "900",
        classroom,
        tmp_path / "out",
        fixture_settings,
        jobs=1,
        judge=fixture_judge,
        on_row=stop_after_two,
        stream=open(tmp_path / "log", "w"),
    )
    assert status == EXIT_INTERRUPTED
    assert _consistent(tmp_path / "out") == set(seen)
    again = CountingJudge(fixture_judge)
    assert (
        grade_class(
            "900",
            classroom,
            tmp_path / "out",
            fixture_settings,
            jobs=1,
            judge=again,
            stream=open(tmp_path / "log", "w"),
        )
        == 0
    )
    assert again.calls == 3
    assert _consistent(tmp_path / "out") == set(names)


HOSTILE = {
    "a_ref.py": REFERENCE,
    "b_wrong.py": WRONG,
    "c_loop.py": "def add(a, b):\n    while True:\n        pass\n",
    "d_forkbomb.py": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "e_ref2.py": REFERENCE + "\n# mine\n",
}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_sigint_to_the_command_mid_run_then_resume_with_hostile_files(tmp_path):
    """The real command in a subprocess: SIGINT once a judgement is cached; then the re-run finishes the class."""
    classroom, out = write_tree(tmp_path / "class", HOSTILE), tmp_path / "out"
    env = {**os.environ, "PRACTICE_PROBLEMS_DIR": str(REPO / "tests" / "fixtures" / "problems")}
    command = [sys.executable, "-m", "judge.cli", "grade", "900", str(classroom), "--out", str(out), "--jobs", "1"]
    # Ctrl-C as a terminal sends it: a suite started in the background (`cmd &`) passes SIGINT on ignored, and a
    # Python started with it ignored keeps it so (no KeyboardInterrupt), so the command gets the default back.
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_default_sigint
    )
    deadline = time.monotonic() + 240
    while not list((out / ".cache" / "reports").glob("*.json")) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read().decode()[-2000:]
        time.sleep(0.1)
    assert proc.poll() is None, "the class was graded before a cached judgement was seen: nothing left to interrupt"
    os.kill(proc.pid, signal.SIGINT)
    log = proc.communicate(timeout=120)[0].decode()
    assert proc.returncode == EXIT_INTERRUPTED, log[-2000:]
    assert "resume" in log
    partial = _consistent(out)
    assert 1 <= len(partial) < len(HOSTILE)
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = read_grades(out)
    assert _consistent(out) == {Path(n).stem for n in HOSTILE}
    assert rows["a_ref"]["verdict"] == rows["e_ref2"]["verdict"] == "accepted"
    assert rows["b_wrong"]["verdict"] == "wrong_answer"
    assert rows["c_loop"]["verdict"] == "time_limit_exceeded"
    assert rows["d_forkbomb"]["verdict"] in (
        "runtime_error",
        "time_limit_exceeded",
        "memory_limit_exceeded",
        "compile_error",
    )
    cached = {s for s, r in read_reports(out).items() if r["cached"]}
    assert partial <= cached, "what the interrupted run finished is not judged again"
    assert json.loads((out / "gradescope" / "c_loop" / "results.json").read_text())["score"] == 0
