"""Spawn mode (a fresh interpreter per job, as on macOS) keeps the fork mode's contract, forced here on Linux."""

from __future__ import annotations

import os
import shutil
import sys
import time

import pytest

from judge import Judge
from judge.report.models import Verdict
from judge.settings import Settings
from sandbox import JobSpec, ZygoteClient
from sandbox.reaper import NO_PIDFD_ENV
from tests.conftest import FIXTURE_PROBLEMS
from tests.sandbox.support import result

# (target, payload, spec fields): small jobs whose facts must not depend on how the process was made
CASES = {
    "clean exit": ("identity", {}, {}),
    "exit code": ("exit_with", {"code": 3}, {}),
    "killed by a signal": ("exit_with", {"signal": 15}, {}),
    "timeout kill": ("sleep", {"seconds": 30}, {"wall_s": 1}),
    "output cap": ("flood", {}, {"output_bytes": 64 << 10}),
    "memory exceeded": ("allocate", {"mib": 1024}, {"memory_bytes": 256 << 20}),
}
FACTS = ("exit_code", "signal", "timed_out", "memory_exceeded", "output_exceeded", "layers", "sandbox_error")


def _zygote(spawn: bool, name: str) -> ZygoteClient:
    z = ZygoteClient([], name, spawn=spawn).start()
    z.wait_ready(60)
    return z


@pytest.fixture(scope="module")
def spawn_zygote():
    z = _zygote(True, "test-spawn-zygote")
    yield z
    z.close()


def _facts(zygote: ZygoteClient, target: str, payload: dict, **fields):
    fields.setdefault("wall_s", 20)
    fields.setdefault("memory_bytes", 256 << 20)
    spec = JobSpec(target=f"tests.sandbox.targets:{target}", isolate=True, payload=payload, **fields)
    facts = zygote.run(spec).wait(60)
    assert facts is not None, "the job did not end"
    return facts


def _pidfds(pid: int) -> int:
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:[pidfd]"
        except OSError:
            pass
    return count


@pytest.mark.parametrize("case", list(CASES))
def test_spawned_job_facts_match_a_forked_job(case, zygote, spawn_zygote):
    target, payload, fields = CASES[case]
    forked = _facts(zygote, target, payload, **fields)
    spawned = _facts(spawn_zygote, target, payload, **fields)
    assert {k: getattr(spawned, k) for k in FACTS} == {k: getattr(forked, k) for k in FACTS}, spawned.output_tail
    assert spawned.setup_s is not None and spawned.setup_s > 0


def test_spawned_job_sees_what_a_forked_job_sees(zygote, spawn_zygote):
    forked, spawned = (result(_facts(z, "identity", {})) for z in (zygote, spawn_zygote))
    for key in ("uid", "gid", "cwd", "home", "tmpdir", "hostname", "env"):
        assert spawned[key] == forked[key], key


def test_spawn_mode_is_forced_where_fork_is_unsafe(monkeypatch):
    assert not ZygoteClient([], "z").spawn
    monkeypatch.setattr(sys, "platform", "darwin")
    assert ZygoteClient([], "z").spawn


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the SIGCHLD path is the only one here")
@pytest.mark.parametrize("spawn", [False, True], ids=["fork", "spawn"])
def test_sigchld_path_reports_exits_without_pidfds(spawn, monkeypatch):
    monkeypatch.setenv(NO_PIDFD_ENV, "1")
    z = _zygote(spawn, "test-sigchld-zygote")
    try:
        sleeper = z.run(JobSpec(target="tests.sandbox.targets:sleep", payload={"seconds": 30}, wall_s=2))
        quick = [z.run(JobSpec(target="tests.sandbox.targets:exit_with", payload={"code": n})) for n in (0, 3, 5)]
        assert _pidfds(z._proc.pid) == 0  # really the self-pipe, not a pidfd
        assert [job.wait(30).exit_code for job in quick] == [0, 3, 5]
        started = time.monotonic()
        slept = sleeper.wait(30)
        assert slept.timed_out and slept.signal == 9
        assert time.monotonic() - started < 10
    finally:
        z.close()


def test_spawned_jobs_end_when_the_judge_goes_away(monkeypatch):
    """No PDEATHSIG on macOS: the zygote kills its jobs when the control socket closes (the judge died)."""
    monkeypatch.setenv(NO_PIDFD_ENV, "1")
    z = _zygote(True, "test-orphan-zygote")
    job = z.run(JobSpec(target="tests.sandbox.targets:sleep", payload={"seconds": 60}, wall_s=60))
    pid = job.wait_started()
    z.close()  # what the judge's death looks like from the zygote: EOF on the control socket
    assert not z.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_pidfds_are_used_where_available(zygote):
    if not hasattr(os, "pidfd_open") or os.environ.get(NO_PIDFD_ENV):
        pytest.skip("no pidfd here")
    job = zygote.run(JobSpec(target="tests.sandbox.targets:sleep", payload={"seconds": 30}, wall_s=20))
    try:
        assert _pidfds(zygote._proc.pid) >= 1
    finally:
        job.kill()
        job.wait(30)


@pytest.fixture(scope="module")
def spawn_judge(tmp_path_factory):
    # Without zygotes every job imports torch cold inside the wall limit: the fixture's 6 s is meant for warm
    # jobs, and on a loaded 2-core host (the suite runs two at once) cold imports alone can take that long.
    problems = tmp_path_factory.mktemp("spawn-problems")
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
    toml = problems / "900-echo" / "problem.toml"
    toml.write_text(toml.read_text().replace("wall_s = 6", "wall_s = 15"))
    with Judge(Settings(problems_dir=problems, zygotes=False)) as judge:
        yield judge


@pytest.mark.slow
def test_judge_with_zygotes_off_grades_the_fixture_problem(spawn_judge):
    folder = FIXTURE_PROBLEMS / "900-echo" / "solutions"
    accepted = spawn_judge.grade("900", (folder / "reference.py").read_text())
    assert all(z.spawn for z in spawn_judge._zygotes)
    assert accepted.verdict == Verdict.accepted, (accepted.message, accepted.detail, accepted.run.output_tail)
    assert accepted.run.setup_s is not None
    wrong = spawn_judge.grade("900", (folder / "wrong" / "subtracts.py").read_text())
    assert wrong.verdict == Verdict.wrong_answer, (wrong.message, wrong.detail)
    looping = spawn_judge.grade("900", "def add(a, b):\n    while True:\n        pass\n")
    assert looping.verdict == Verdict.time_limit_exceeded, (looping.message, looping.detail)
