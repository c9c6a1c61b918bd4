"""A parked job (JobSpec.parked_s): it may wait for its work longer than its time limit, which counts from
restart_clock, and no longer than parked_s (judge.grading.parking relies on both)."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time

import pytest

from sandbox import JobSpec

pytestmark = pytest.mark.slow


def start_parked(zygote, seconds: float, wall_s: float = 1.0, parked_s: float = 30.0, **end):
    ours, theirs = socket.socketpair()
    spec = JobSpec(
        target="tests.sandbox.targets:parked",
        isolate=True,
        wall_s=wall_s,
        parked_s=parked_s,
        memory_bytes=256 << 20,
        payload={"seconds": seconds, **end},
    )
    job = zygote.run(spec, [theirs.fileno()])
    theirs.close()
    return job, ours


def test_a_parked_job_outlives_its_limit_while_it_waits_and_is_timed_from_its_work(zygote):
    job, work = start_parked(zygote, seconds=0.2)
    with work:
        assert job.wait(1.5) is None, "a parked job must not be held to its limit while it waits"
        job.restart_clock()
        work.sendall(b"x")
        facts = job.wait(30)
    assert facts is not None and not facts.timed_out and facts.exit_code == 0, facts
    assert facts.wall_s < 1.0  # from its work's arrival, not from its fork 1.5 s earlier


def test_after_restart_clock_the_limit_holds(zygote):
    job, work = start_parked(zygote, seconds=30)
    with work:
        job.restart_clock()
        started = time.monotonic()
        work.sendall(b"x")
        facts = job.wait(30)
    assert facts is not None and facts.timed_out, facts
    assert time.monotonic() - started < 10  # the 1 s limit, not parked_s's 30


def test_a_job_parked_past_parked_s_is_ended(zygote):
    job, work = start_parked(zygote, seconds=0, parked_s=1.0)
    with work:
        facts = job.wait(30)
    assert facts is not None and facts.timed_out, facts


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as file:
                if entry.isdigit() and int(file.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _bare(pid: int) -> bool:
    return "-I" in _cmdline(pid) and "-S" in _cmdline(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pid namespaces are Linux's")
def test_a_parked_jobs_relay_and_init_wait_as_bare_interpreters(zygote, plan):
    if plan.get("pid") != "active":
        pytest.skip("no pid namespace on this host: a job has no relay or init")
    job, work = start_parked(zygote, seconds=0)
    with work:
        relay = job.wait_started(30)
        deadline = time.monotonic() + 30
        # Each becomes one by its own exec, soon after its fork: watched until then, within a bound.
        while time.monotonic() < deadline and not (_bare(relay) and any(_bare(c) for c in _children(relay))):
            time.sleep(0.01)
        assert _bare(relay), _cmdline(relay)
        (init,) = _children(relay)
        assert _bare(init), _cmdline(init)
        job.restart_clock()
        work.sendall(b"x")
        facts = job.wait(30)
    assert facts is not None and facts.exit_code == 0, facts


@pytest.mark.parametrize(
    "end, field, value",
    [({"exit": 7}, "exit_code", 7), ({"signal": int(signal.SIGTERM)}, "signal", int(signal.SIGTERM))],
    ids=["exit-7", "sigterm"],
)
def test_a_parked_job_ends_as_its_job_did_and_its_orphans_with_it(zygote, end, field, value):
    job, work = start_parked(zygote, seconds=0, wall_s=30, orphan=True, **end)
    with work:
        job.restart_clock()
        work.sendall(b"x")
        facts = job.wait(30)
    assert facts is not None and getattr(facts, field) == value and not facts.timed_out, facts
    assert facts.wall_s < 20  # the orphan's minute of sleep did not hold the job's end
