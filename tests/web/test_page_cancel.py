"""Cancel stops the work: the in-process pool drops a waiting submission or signals a running one, and the judge
kills a cancelled judgement's processes at once (before its time limit)."""

from __future__ import annotations

import threading

import pytest

from judge.report.events import CaseStarted
from web.dispatch import LocalPool

LOOPS = "def add(a, b):\n    while True:\n        pass\n"


def test_the_pool_drops_a_waiting_submission_and_signals_a_running_one():
    started, release = threading.Event(), threading.Event()
    seen: dict[str, threading.Event] = {}
    ran: list[str] = []

    def task(submission_id: str, cancel: threading.Event) -> None:
        ran.append(submission_id)
        seen[submission_id] = cancel
        started.set()
        cancel.wait(30)  # a judgement that runs until it is cancelled
        release.set()

    pool = LocalPool(task, workers=1)
    try:
        pool.submit("running")
        assert started.wait(10)
        pool.submit("waiting")
        assert pool.waiting() == 1
        pool.cancel("waiting")
        assert pool.waiting() == 0
        pool.cancel("running")
        assert release.wait(10) and seen["running"].is_set()
    finally:
        pool.close()
    assert ran == ["running"]  # the cancelled waiting one never ran


@pytest.mark.slow
def test_a_cancelled_judgement_is_killed_before_its_time_limit(fixture_judge):
    cancel = threading.Event()
    names: list[str] = []

    def on_event(event) -> None:
        if isinstance(event, CaseStarted):
            names.append(event.name)
            cancel.set()  # the learner presses Cancel while the looping case runs

    report = fixture_judge.grade("900", LOOPS, "run", on_event=on_event, cancel=cancel)
    # a Run alone on the judge is split over two pairs (judge/checker/shards.py): either looping case may start first
    assert names and set(names) <= {"test_add[small]", "test_add[big]"}
    assert not report.run.timed_out  # killed by the cancel, not by the 6 s limit
