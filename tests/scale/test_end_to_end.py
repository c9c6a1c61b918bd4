"""Two web processes and two queue workers over real Redis and PostgreSQL take 50 submissions while one worker is
SIGKILLed mid-task and one web process is SIGKILLed and restarted: each submission gets exactly one right verdict,
and its stream, read from either web process, ends with it.

The submissions are for the fixture problem 900 (add two tensors: a judgement takes a second or two here), so
that the test fits CI's time; exercise 100 takes 10-30 s a judgement on this machine and adds nothing the queue
path does not already see with 900 (the task, the events and the report are the same for every problem)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import time

import httpx
import pytest
import redis

from judge.cli.server_client import sse_events
from judge.queue.names import WORKER
from judge.queue.store import SqlStore
from tests.conftest import FIXTURE_PROBLEMS
from tests.scale.processes import Web, judge_cli, worker

pytestmark = pytest.mark.slow

ACCEPTED = (FIXTURE_PROBLEMS / "900-echo" / "solutions" / "reference.py").read_text()
SLOW_ACCEPTED = "import time\n\ntime.sleep(2)  # holds its worker long enough to be killed mid-task\n\n\n" + ACCEPTED
WRONG_FILE = FIXTURE_PROBLEMS / "900-echo" / "solutions" / "wrong" / "subtracts.py"
WRONG = WRONG_FILE.read_text()
SYNTAX = "def add(a, b)\n    return a + b\n"
STUCK = "import time\n\ntime.sleep(5)\n\n\n" + ACCEPTED  # running long enough to be cancelled
EXPECT = {
    ACCEPTED: "accepted",
    SLOW_ACCEPTED: "accepted",
    WRONG: WRONG.splitlines()[0].removeprefix("# expect: "),  # the verdict the wrong solution declares
    SYNTAX: "compile_error",
}
MIX = [SLOW_ACCEPTED] * 6 + [ACCEPTED] * 24 + [WRONG] * 15 + [SYNTAX] * 5  # 50


def stream(url: str, sid: str, cookies: httpx.Cookies) -> list[tuple[str | None, str, dict]]:
    with httpx.Client(base_url=url, cookies=cookies, timeout=httpx.Timeout(10, read=180)) as client:
        with client.stream("GET", f"/api/submissions/{sid}/events", params={"lang": "en"}) as response:
            assert response.status_code == 200
            return [(i, kind, json.loads(data)) for i, kind, data in sse_events(response)]


def test_fifty_submissions_survive_a_killed_worker_and_a_killed_web_process(tmp_path, redis_url, postgres_url):
    problems = tmp_path / "problems"
    problems.mkdir()
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
    env = {
        **os.environ,
        "PRACTICE_QUEUE_URL": redis_url,
        "PRACTICE_DATABASE_URL": postgres_url,
        "PRACTICE_PROBLEMS_DIR": str(problems),
        "PRACTICE_QUEUE_VISIBILITY_TIMEOUT": "10",  # a killed worker's task comes back within seconds here
        "PRACTICE_QUEUE_LIMIT": "200",
        "PRACTICE_LEARNER_QUEUE_LIMIT": "100",
        "PRACTICE_COOKIE_SECRET": "one-key-for-every-web-process",  # a learner's cookie holds on either process
    }
    refused = judge_cli(env, "serve", "--port", "1")
    assert refused.returncode == 2 and "judge db upgrade" in refused.stdout  # unmigrated: refused, names the fix
    refused = judge_cli(env, "worker", "--queue", "cpu")
    assert refused.returncode == 2 and "judge db upgrade" in refused.stdout
    upgraded = judge_cli(env, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    processes = []
    began = time.monotonic()
    try:
        first, second = (worker(env, tmp_path / f"w{n}.log", f"w{n}").start() for n in (1, 2))
        processes += [first, second]
        a = Web(env, tmp_path / "a.log").start()
        b = Web(env, tmp_path / "b.log").start()
        processes += [a, b]
        a.wait_healthy(180), b.wait_healthy(180)  # healthy: both workers are registered
        started = time.monotonic()
        print(f"servers up in {started - began:.0f} s")
        with httpx.Client(base_url=a.url, timeout=30) as client:
            assert client.get("/api/problems").status_code == 200
            cookies = client.cookies  # one learner (a browser) talking to both web processes
        ids: dict[str, str] = {}
        killed_worker = killed_web = False
        broker = redis.Redis.from_url(redis_url)
        for n, code in enumerate(MIX):
            url = (a if n % 2 and not killed_web else b).url  # alternate, then only b while a is down
            response = httpx.post(
                url + "/api/submissions",
                json={"problem_id": "900", "code": code, "mode": "submit"},
                cookies=cookies,
                timeout=30,
            )
            assert response.status_code == 202, response.text
            ids[response.json()["id"]] = EXPECT[code]
            if n == 5:  # the slow ones are in: kill worker 1 once it is judging one
                deadline = time.monotonic() + 120
                while json.loads(broker.get(WORKER + "w1") or b'{"busy": 0}')["busy"] < 1:
                    assert time.monotonic() < deadline, first.tail()
                    time.sleep(0.05)
                first.kill()
                killed_worker = True
            if n == 25:
                a.kill()  # mid-batch; b keeps taking the rest
                killed_web = True
        assert killed_worker and killed_web
        a = Web(env, tmp_path / "a2.log", port=a.port).start()  # restarted on its port; re-dispatches nothing
        processes.append(a)
        a.wait_healthy(120)
        deadline = time.monotonic() + 300
        store = SqlStore(postgres_url)
        try:
            while True:
                unfinished = [sid for sid in ids if (s := store.get(sid)) is None or s.status != "done"]
                if not unfinished:
                    break
                assert time.monotonic() < deadline, f"{len(unfinished)} never finished; {second.tail()}"
                time.sleep(0.5)
            print(f"50 submissions judged in {time.monotonic() - started:.0f} s")
            verdicts = {sid: json.loads(store.get(sid).report)["verdict"] for sid in ids}
            assert verdicts == ids  # exactly the right verdict each
            assert max(store.get(sid).attempts for sid in ids) >= 2  # the killed worker's task was judged again
        finally:
            store.close()
        for n, (sid, verdict) in enumerate(ids.items()):
            for web in (a, b) if n % 5 == 0 else ((a, b)[n % 2],):  # every stream, some from both processes
                events = stream(web.url, sid, cookies)
                kinds = [kind for _, kind, _ in events]
                assert kinds[0] == "queued" and kinds[-1] == "done" and kinds.count("done") == 1, kinds
                assert events[-1][2]["report"]["verdict"] == verdict
        print(f"streams read at {time.monotonic() - started:.0f} s")
        # cancel over the queue: a running judgement is stopped, its stream ends `cancelled`, no report lands
        with httpx.Client(base_url=b.url, cookies=cookies, timeout=30) as client:
            sid = client.post("/api/submissions", json={"problem_id": "900", "code": STUCK, "mode": "submit"}).json()[
                "id"
            ]
            deadline = time.monotonic() + 120
            while client.get(f"/api/submissions/{sid}").json()["status"] != "running":
                assert time.monotonic() < deadline
                time.sleep(0.1)
            assert client.post(f"/api/submissions/{sid}/cancel").status_code == 202
        kinds = [kind for _, kind, _ in stream(a.url, sid, cookies)]
        assert kinds[-1] == "cancelled" and "done" not in kinds
        # judge grade --queue: the same judgements through the same workers, the same outputs
        students = tmp_path / "class"
        students.mkdir()
        for name, code in {"alice": ACCEPTED, "bob": WRONG, "carol": SYNTAX}.items():
            (students / f"{name}.py").write_text(code)
        graded = judge_cli(env, "grade", "900", str(students), "--out", str(tmp_path / "out"), "--queue", timeout=300)
        assert graded.returncode == 0, graded.stdout + graded.stderr
        with open(tmp_path / "out" / "grades.csv", newline="", encoding="utf-8-sig") as table:
            rows = {row["student"]: row["verdict"] for row in csv.DictReader(table)}
        assert rows == {"alice": "accepted", "bob": EXPECT[WRONG], "carol": "compile_error"}
        print(f"graded with --queue at {time.monotonic() - started:.0f} s")
    finally:
        stopping = time.monotonic()
        for process in processes:
            process.stop()
        print(f"stopped in {time.monotonic() - stopping:.0f} s")
