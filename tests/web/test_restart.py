"""Nothing lost: SIGKILL the server mid-judgement, start it again, and every submission ends with one report."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.conftest import FIXTURE_PROBLEMS
from tests.web.conftest import Server
from tests.web.helpers import events

pytestmark = pytest.mark.slow
SLOW_ADD = "import time\ntime.sleep(2)\n\ndef add(a, b):\n    return a + b\n"


def test_sigkill_mid_judgement_then_restart_finishes_each_submission_once(tmp_path):
    server = Server(tmp_path, PRACTICE_PROBLEMS_DIR=str(FIXTURE_PROBLEMS), PRACTICE_WORKERS="1").start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            ids = [
                client.post("/api/submissions", json={"problem_id": "900", "code": SLOW_ADD, "mode": "submit"}).json()[
                    "id"
                ]
                for _ in range(2)
            ]
            deadline = time.monotonic() + 60
            while client.get(f"/api/submissions/{ids[0]}").json()["status"] != "running":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            assert client.get(f"/api/submissions/{ids[1]}").json()["status"] == "queued"
            cookies = dict(client.cookies)
        server.kill()  # one running, one queued

        server.start()
        with httpx.Client(base_url=server.url, timeout=30, cookies=cookies) as client:
            for sid in ids:
                _finishes(client, sid)  # before streaming: a lost re-queue keeps a stream open (its pings) forever
                stream = events(client, sid)
                assert [kind for _, kind, _ in stream].count("done") == 1
                assert stream[-1][2]["report"]["verdict"] == "accepted"
                assert client.get(f"/api/submissions/{sid}").json()["status"] == "done"
            history = client.get("/api/submissions", params={"problem_id": "900"}).json()
            assert sorted(h["id"] for h in history) == sorted(ids)
            assert all(h["status"] == "done" for h in history)
    finally:
        server.stop()


RESUME_S = 120  # two slow submissions judged again after the restart, with room for a loaded host


def _finishes(client: httpx.Client, sid: str) -> None:
    """Fail with a message, within RESUME_S, when the restarted server never finishes submission `sid`."""
    deadline, status = time.monotonic() + RESUME_S, "?"
    while time.monotonic() < deadline:
        status = client.get(f"/api/submissions/{sid}").json()["status"]
        if status == "done":
            return
        time.sleep(0.2)
    pytest.fail(f"submission {sid} is still {status!r} {RESUME_S} s after the restart: it was not re-queued")
