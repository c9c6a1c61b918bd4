"""Nothing lost under faults: real PostgreSQL and Redis (their data on one small tmpfs), one web process and two
queue workers take a burst of submissions through the public API while one fault is injected at a time. For each:
every submission taken gets exactly one right verdict within 60 s of the fault's end, no answer is a 5xx other
than 503, every worker is alive at the end, and /api/health never says ok while work is stranded.

The bursts are small (eight submissions of the fixture problem 900, a second or two a judgement) to fit CI's
time; bench/faults.py runs the same faults with larger bursts and prints the table."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from judge.queue.names import WORKER
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.burst import ACCEPTED, RECOVERY_S, SLOW, WRONG, run_fault
from tests.faults.deployment import Deployment, data_disk, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def deploy() -> Iterator[Deployment]:
    with data_disk() as disk, tempfile.TemporaryDirectory(prefix="practice-faults-") as folder:
        root = Path(folder)
        problems = root / "problems"
        problems.mkdir()
        shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
        deployment = Deployment(root, disk, problems)
        try:
            yield deployment
        finally:
            deployment.close()


def all_well(deploy: Deployment) -> None:
    """After a fault: both workers alive and registered, health ok again within the recovery bound."""
    for name, process in deploy.workers.items():
        assert process.alive(), f"worker {name} died:\n{process.tail()}"

    def healthy() -> bool:
        try:
            return httpx.get(deploy.web.url + "/api/health", timeout=10).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(healthy, RECOVERY_S, f"health ok again\n{deploy.logs()}")


def test_the_database_stopped_for_10_s(deploy):
    seen, recovered = run_fault(deploy, deploy.pg.stop, deploy.pg.start, 10)
    print(f"database stopped 10 s: {len(seen.accepted)} judged, {seen.statuses.count(503)} answers 503, "
          f"last verdict {recovered:.1f} s after the fault")  # fmt: skip
    assert recovered <= RECOVERY_S, deploy.logs()
    all_well(deploy)


def test_a_worker_killed_mid_judgement_and_restarted(deploy):
    broker = redis.Redis.from_url(deploy.redis.url)
    killed = {}

    def kill_w1_while_it_judges() -> None:
        wait_for(lambda: json.loads(broker.get(WORKER + "w1") or b'{"busy": 0}')["busy"] >= 1, 60, "w1 busy")
        deploy.workers["w1"].kill()
        killed["at"] = time.monotonic()

    seen, recovered = run_fault(
        deploy, kill_w1_while_it_judges, lambda: deploy.restart_worker("w1"), 1, [SLOW, SLOW, SLOW, SLOW, ACCEPTED]
    )
    print(f"worker killed: last verdict {recovered:.1f} s after its restart")
    assert recovered <= RECOVERY_S, deploy.logs()
    all_well(deploy)


def test_the_data_disk_full_for_20_s(deploy):
    seen, recovered = run_fault(deploy, deploy.filler.fill, deploy.filler.free, 20)
    print(f"disk full 20 s: {seen.statuses.count(503)} answers 503, postgres restarted {deploy.pg.restarts} times, "
          f"last verdict {recovered:.1f} s after the fault")  # fmt: skip
    assert recovered <= RECOVERY_S, deploy.logs()
    all_well(deploy)


def test_the_broker_stopped_for_10_s(deploy):
    seen, recovered = run_fault(deploy, deploy.redis.stop, deploy.redis.start, 10)
    print(f"broker stopped 10 s: last verdict {recovered:.1f} s after the fault")
    assert recovered <= RECOVERY_S, deploy.logs()
    all_well(deploy)


def test_the_web_process_killed(deploy):
    seen, recovered = run_fault(deploy, deploy.web.kill, deploy.restart_web, 2, [ACCEPTED, WRONG, SLOW, ACCEPTED])
    print(f"web killed: {seen.unreachable} refused connections, last verdict {recovered:.1f} s after its restart")
    assert recovered <= RECOVERY_S, deploy.logs()
    all_well(deploy)
