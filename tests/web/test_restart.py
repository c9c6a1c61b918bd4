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
                stream = events(client, sid)
                assert [kind for _, kind, _ in stream].count("done") == 1
                assert stream[-1][2]["report"]["verdict"] == "accepted"
                assert client.get(f"/api/submissions/{sid}").json()["status"] == "done"
            history = client.get("/api/submissions", params={"problem_id": "900"}).json()
            assert sorted(h["id"] for h in history) == sorted(ids)
            assert all(h["status"] == "done" for h in history)
    finally:
        server.stop()
