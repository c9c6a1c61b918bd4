"""A parked job (JobSpec.parked_s): it may wait for its work longer than its time limit, which counts from
restart_clock, and no longer than parked_s (judge.grading.parking relies on both)."""

from __future__ import annotations

import socket
import time

import pytest

from sandbox import JobSpec

pytestmark = pytest.mark.slow


def start_parked(zygote, seconds: float, wall_s: float = 1.0, parked_s: float = 30.0):
    ours, theirs = socket.socketpair()
    spec = JobSpec(
        target="tests.sandbox.targets:parked",
        isolate=True,
        wall_s=wall_s,
        parked_s=parked_s,
        memory_bytes=256 << 20,
        payload={"seconds": seconds},
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
