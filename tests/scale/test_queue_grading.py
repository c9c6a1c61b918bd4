"""`judge grade --queue`'s judge: a judgement that ends on the queue's side without a report is a retryable fault."""

from __future__ import annotations

import pytest

from judge.queue.grading import QueueJudge
from judge.report.models import Verdict
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS
from web.config import WebSettings


@pytest.mark.timeout(60)  # it used to poll forever
def test_a_queued_judgement_cancelled_on_the_queue_side_is_a_retryable_fault(tmp_path, monkeypatch):
    web = WebSettings(data_dir=tmp_path, queue_url="redis://127.0.0.1:1/0")  # never reached: submit is replaced
    with QueueJudge(Settings(problems_dir=FIXTURE_PROBLEMS), web) as judge:
        monkeypatch.setattr(judge.dispatcher, "submit", judge.store.cancel)  # sent, then cancelled before a worker
        report = judge.grade("900", "def add(a, b):\n    return a + b\n")
    assert report.verdict == Verdict.internal_error and report.fault is not None and report.fault.retryable
    assert "cancelled" in report.detail
