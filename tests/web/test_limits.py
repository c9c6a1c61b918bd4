"""Queue limits (429, 503 + Retry-After) and judge faults, on a real uvicorn with a judge we control."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import uvicorn

from judge.problem.folders import ProblemSet
from judge.report.events import CaseFinished, Collected
from judge.report.models import CaseResult, Outcome, Report, Verdict
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS
from tests.web.conftest import free_port
from tests.web.helpers import events
from web.app import create_app
from web.config import WebSettings


class GatedJudge:
    """Grades instantly once the gate opens; "boom" raises inside the judge (a fault, not a learner error)."""

    def __init__(self):
        self.settings = Settings(problems_dir=FIXTURE_PROBLEMS)
        self.problem_set = ProblemSet(FIXTURE_PROBLEMS)
        self.gate = threading.Event()

    def problems(self):
        return self.problem_set.all()

    def problem(self, problem_id):
        return self.problem_set.get(problem_id)

    def grade(self, problem_id, code, mode, on_event=None, display_name=None, cancel=None):
        assert self.gate.wait(30)
        if "boom" in code:
            raise RuntimeError("the checker zygote vanished")
        case = CaseResult(name="test_add[small]", outcome=Outcome.passed)
        on_event(Collected(total=1))
        on_event(CaseFinished.of(case, 1, 1, 0))
        return Report(problem=problem_id, verdict=Verdict.accepted, score=1, passed=1, total=1, mode=mode, cases=[case])


@pytest.fixture()
def gated(tmp_path):
    judge = GatedJudge()
    settings = WebSettings(data_dir=tmp_path, workers=1, queue_limit=2, learner_queue_limit=2)
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings, judge=judge), host="127.0.0.1", port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield judge, f"http://127.0.0.1:{server.config.port}"
    judge.gate.set()
    server.should_exit = True
    thread.join(timeout=10)


def post(client, code="def add(a, b):\n    return a + b\n"):
    return client.post("/api/submissions", json={"problem_id": "900", "code": code, "mode": "submit"})


def wait_status(client, sid, status):
    deadline = time.monotonic() + 10
    while client.get(f"/api/submissions/{sid}").json()["status"] != status:
        assert time.monotonic() < deadline, f"{sid} never became {status}"
        time.sleep(0.05)


def test_learner_limit_is_429_and_full_queue_is_503(gated):
    judge, url = gated
    with httpx.Client(base_url=url) as first, httpx.Client(base_url=url) as second, httpx.Client(base_url=url) as third:
        running = post(first).json()["id"]
        wait_status(first, running, "running")  # the one worker is busy; the gate holds it
        waiting = post(first)
        assert waiting.status_code == 202  # waiting: 1
        limited = post(first)
        assert limited.status_code == 429 and "2" in limited.json()["detail"]
        other = post(second)
        assert other.status_code == 202  # waiting: 2 = the queue's limit
        full = post(third)
        assert full.status_code == 503 and int(full.headers["retry-after"]) > 0
        judge.gate.set()
        # Wait for every admitted submission, not only the running one: the worker takes the
        # next waiting job only after the first one's last event, so "room" exists once they are done.
        admitted = [running, waiting.json()["id"], other.json()["id"]]
        verdicts = [events(first, sid)[-1][2]["report"]["verdict"] for sid in admitted]
        assert verdicts == ["accepted"] * 3
        assert post(third).status_code == 202  # room again


def test_a_judge_fault_becomes_an_internal_error_report(gated):
    judge, url = gated
    judge.gate.set()
    with httpx.Client(base_url=url) as client:
        sid = post(client, "boom = 1\n").json()["id"]
        done = events(client, sid)[-1][2]
        assert done["status"] == "done"
        assert done["report"]["verdict"] == "internal_error" and done["report"]["message"]
