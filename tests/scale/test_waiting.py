"""Processes that start while PostgreSQL or Redis is unreachable: `judge worker` and `judge serve` say once what they
wait for and where, wait with backoff, and go on when it comes (the worker judges); `judge status` and `judge db
upgrade`, for which waiting makes no sense, say which service is unreachable in one line and exit 1; a database
that answers with a refusal waiting will not change is one line and a non-zero exit. Never a traceback."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from judge.queue.names import WORKER
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.burst import ACCEPTED
from tests.faults.deployment import Postgres, Redis, wait_for
from tests.scale.processes import Web, judge_cli, worker

pytestmark = pytest.mark.slow


@pytest.fixture()
def services() -> Iterator[tuple[Postgres, Redis, dict[str, str], Path]]:
    """A PostgreSQL cluster (migrated, then stopped) and a Redis (not started), each on a port of its own."""
    folder = Path(tempfile.mkdtemp(prefix="practice-waiting-"))
    os.chmod(folder, 0o755)  # the postgres user reaches its data below
    (folder / "disk").mkdir(mode=0o755)
    (folder / "logs").mkdir()
    problems = folder / "problems"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
    pg = Postgres(folder / "disk", folder / "logs").init()
    broker = Redis(folder / "disk", folder / "logs")
    env = {
        **os.environ,
        "PRACTICE_DATABASE_URL": pg.url,
        "PRACTICE_QUEUE_URL": broker.url,
        "PRACTICE_PROBLEMS_DIR": str(problems),
        "PRACTICE_COOKIE_SECRET": "waiting-tests",
    }
    upgraded = judge_cli(env, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    pg.stop()
    try:
        yield pg, broker, env, folder
    finally:
        broker._stop.set()
        broker.stop()
        pg.close()
        shutil.rmtree(folder, ignore_errors=True)


def one_line(done, who: str, what: str) -> None:
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert out.strip().startswith(f"{who}: the {what} at 127.0.0.1:") and "unreachable" in out, out
    assert len(out.strip().splitlines()) == 1 and "Traceback" not in out, out


def test_processes_started_while_the_database_and_the_broker_are_down_wait_then_work(services):
    pg, broker, env, folder = services
    one_line(judge_cli(env, "status"), "judge status", "database")
    one_line(judge_cli(env, "db", "upgrade"), "judge db upgrade", "database")
    w1 = worker(env, folder / "w1.log", "w1").start()
    web = Web(env, folder / "web.log").start()
    try:
        wait_for(lambda: f"waiting for the database at 127.0.0.1:{pg.port}" in w1.tail(), 60, "the worker's line")
        wait_for(lambda: f"waiting for the database at 127.0.0.1:{pg.port}" in web.tail(), 60, "the web's line")
        assert w1.alive() and web.alive()
        pg.start()
        wait_for(lambda: f"waiting for the broker at 127.0.0.1:{broker.port}" in w1.tail(), 60, "the broker line")
        # the web process serves with its database, before the broker is there: what a proxy follows says so
        wait_for(lambda: live(web) == 200, 120, f"/api/health/live 200\n{web.tail()}")
        one_line(judge_cli(env, "status"), "judge status", "broker")
        broker.start()
        client = redis.Redis.from_url(broker.url)
        wait_for(lambda: client.exists(WORKER + "w1"), 180, f"the worker registered\n{w1.tail()}")
        with httpx.Client(base_url=web.url, timeout=30) as api:
            sid = api.post("/api/submissions", json={"problem_id": "900", "code": ACCEPTED, "mode": "run"}).json()["id"]
            wait_for(lambda: api.get(f"/api/submissions/{sid}").json()["status"] == "done", 120, "judged")
        status = judge_cli(env, "status")
        assert status.returncode == 0 and "live workers: 1" in status.stdout, status.stdout + status.stderr
        for process in (w1, web):
            assert process.alive() and "Traceback" not in process.tail(), process.tail()
            assert process.tail().count("waiting for the database") == 1  # one line, not one per retry
    finally:
        w1.stop()
        web.stop()


def live(web: Web) -> int:
    try:
        return httpx.get(web.url + "/api/health/live", timeout=5).status_code
    except httpx.HTTPError:
        return 0


def test_a_database_that_refuses_is_one_line_and_a_non_zero_exit(services):
    pg, broker, env, folder = services
    pg.start()
    missing = {**env, "PRACTICE_DATABASE_URL": pg.url.rsplit("/", 1)[0] + "/no_such_database"}
    done = judge_cli(missing, "worker", "--queue", "cpu", "--name", "w-refused", timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in out, out
    assert "the database at 127.0.0.1:" in out and "refused" in out and "no_such_database" in out, out
