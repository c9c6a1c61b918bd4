"""GET /api/health and /metrics, in-process and over a queue; routing of GPU problems by the worker registry."""

from __future__ import annotations

import json
import re

import redis
from fastapi.testclient import TestClient

from judge.problem.folders import ProblemSet
from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.names import CPU, GPU, WORKER
from judge.queue.store import SqlStore
from judge.settings import REPO_ROOT
from tests.scale.servers import free_port
from tests.web.test_limits import GatedJudge
from web.app import create_app
from web.config import WebSettings


def client_for(tmp_path, **settings) -> TestClient:
    judge = GatedJudge()
    judge.gate.set()
    return TestClient(create_app(WebSettings(data_dir=tmp_path, workers=1, **settings), judge=judge))


def test_health_and_metrics_of_the_in_process_default(tmp_path):
    with client_for(tmp_path) as client:
        health = client.get("/api/health")
        assert health.status_code == 200 and health.json() == {"status": "ok", "database": "ok", "workers": "ok"}
        sid = client.post("/api/submissions", json={"problem_id": "900", "code": "x = 1\n", "mode": "run"}).json()["id"]
        with client.stream("GET", f"/api/submissions/{sid}/events") as events:
            assert "event: done" in "".join(events.iter_text())
        text = client.get("/metrics").text
        assert 'practice_judgements_total{problem="900",verdict="accepted"} 1.0' in text
        assert "practice_submit_to_report_seconds_count 1.0" in text and 'practice_queue_depth{state="queued"}' in text


def test_health_names_an_unreachable_broker(tmp_path):
    with client_for(tmp_path, queue_url=f"redis://127.0.0.1:{free_port()}/0") as client:
        health = client.get("/api/health")
        assert health.status_code == 503
        body = health.json()
        assert body["database"] == "ok" and body["broker"] != "ok" and "broker" in body["status"]
        # the broker away: a submission is still stored and answered 202 (the reaper sends it later), never a 500
        client.get("/api/problems")  # the learner cookie
        posted = client.post("/api/submissions", json={"problem_id": "900", "code": "x = 1\n", "mode": "run"})
        assert posted.status_code == 202
        sid = posted.json()["id"]
        assert client.get(f"/api/submissions/{sid}").json()["status"] == "queued"
        assert client.post(f"/api/submissions/{sid}/cancel").status_code == 202
        assert client.get(f"/api/submissions/{sid}").json()["status"] == "cancelled"


def test_health_names_missing_workers_then_ok_when_one_registers(tmp_path, redis_url):
    """/api/health names what is wrong in words, never an exception, even with keys that are not heartbeats under
    the heartbeats' prefix (a full disk once left a probe there, and health answered an AttributeError); the
    proxy's /api/health/live does not follow the workers at all."""
    broker = redis.Redis.from_url(redis_url)
    broker.delete(*broker.keys(WORKER + "*") or ["-"])
    with client_for(tmp_path, queue_url=redis_url) as client:
        health = client.get("/api/health")
        assert health.status_code == 503 and health.json()["workers"] == "no live worker takes the cpu queue"
        live = client.get("/api/health/live")
        assert live.status_code == 200 and live.json() == {"status": "ok", "database": "ok"}
        info = {"name": "w", "queue": "cpu", "concurrency": 1, "busy": 0, "gpu_slots": 0, "canary": "-"}
        broker.set(WORKER + "w", json.dumps({**info, "busy_seconds": 0.0}), ex=15)
        broker.set(WORKER + "w:probe", "1", ex=15)
        broker.hset(WORKER + "not-a-string", mapping={"name": "x"})
        health = client.get("/api/health")
        assert health.status_code == 200, health.text
        assert not re.search(r"Error|Exception|Traceback", health.text), health.text
    broker.delete(WORKER + "w", WORKER + "w:probe", WORKER + "not-a-string")


def test_gpu_problems_go_to_the_gpu_queue_only_while_a_gpu_worker_is_registered(tmp_path, redis_url):
    class Problems:
        settings = None
        problem_set = ProblemSet(REPO_ROOT / "problems")

        def problems(self):
            return self.problem_set.all()

        def problem(self, problem_id):
            return self.problem_set.get(problem_id)

    broker = redis.Redis.from_url(redis_url)
    store = SqlStore(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    dispatcher = CeleryDispatcher(WebSettings(data_dir=tmp_path, queue_url=redis_url), store, Problems())
    try:
        gpu_problem, cpu_problem = Problems().problem("107"), Problems().problem("100")
        assert dispatcher.queue_for(gpu_problem) == CPU  # no GPU worker: the CPU tier is judged on cpu
        info = {"name": "g", "queue": GPU, "concurrency": 1, "busy": 0, "gpu_slots": 1, "canary": "ready"}
        broker.set(WORKER + "g", json.dumps({**info, "busy_seconds": 0.0}), ex=15)
        assert dispatcher.queue_for(gpu_problem) == GPU
        assert dispatcher.queue_for(cpu_problem) == CPU
    finally:
        broker.delete(WORKER + "g")
        dispatcher.close()
        store.close()


def test_a_gpu_worker_whose_canary_fails_takes_no_task(monkeypatch):
    from judge.queue import worker
    from judge.runners import canary, plan
    from judge.settings import Settings

    class FakeJudge:
        settings = Settings(gpu_runner="local")

        def warm(self):
            return self

        def _runner(self, key):
            return f"runner:{key}"

    checked = []

    def failing(runner, timeout_s=0):
        checked.append(runner)
        return canary.CanaryResult(False, "CUDA failed to initialise: no device")

    monkeypatch.setattr(canary, "check", failing)
    assert worker.gpu_canary(FakeJudge()) == (False, "CUDA failed to initialise: no device")
    assert checked == [f"runner:{plan.gpu_runner(FakeJudge.settings)}"]
    FakeJudge.settings = Settings(gpu_runner="")
    ready, why = worker.gpu_canary(FakeJudge())
    assert not ready and "PRACTICE_GPU_RUNNER" in why


def test_the_celery_contract_late_acks_prefetch_one_and_the_visibility_timeout():
    from judge.queue.celery_app import make_celery
    from judge.queue.limits import visibility_timeout_s
    from judge.queue.names import TASK

    problems = ProblemSet(REPO_ROOT / "problems").all()
    settings = WebSettings(queue_url="redis://127.0.0.1:1/0")
    largest = max(p.meta.limits.wall_s for p in problems) + settings.queue_hard_margin_s
    assert visibility_timeout_s(settings, problems) == 2 * largest
    assert visibility_timeout_s(WebSettings(queue_url="redis://x", queue_visibility_timeout=30), problems) == 30
    app = make_celery(settings, 2 * largest)
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost and conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options["visibility_timeout"] == 2 * largest
    task = app.tasks[TASK]
    assert task.acks_late and task.reject_on_worker_lost
    app.close()


def test_judge_status_shows_the_broker_depth_beside_the_store_queued_count(tmp_path, redis_url):
    from judge.queue.status import gather, render
    from judge.queue.store import Limits, Submission, now

    class Problems:
        problem_set = ProblemSet(REPO_ROOT / "problems")

        def problems(self):
            return self.problem_set.all()

        def problem(self, problem_id):
            return self.problem_set.get(problem_id)

    url = redis_url.rsplit("/", 1)[0] + "/8"  # a database of this test's own
    broker = redis.Redis.from_url(url)
    broker.flushdb()
    settings = WebSettings(data_dir=tmp_path, queue_url=url)
    store = SqlStore(settings.database())
    dispatcher = CeleryDispatcher(settings, store, Problems())
    for sid in ("s1", "s2"):
        store.admit(Submission(sid, "l" * 20, "100", "run", "x", "queued", now()), Limits(9, 9, 9))
        dispatcher.submit(sid)
    info = {"name": "g1", "queue": GPU, "concurrency": 2, "busy": 1, "gpu_slots": 2, "canary": "ready (H200)"}
    broker.set(WORKER + "g1", json.dumps({**info, "busy_seconds": 12.0}), ex=15)
    try:
        status = gather(settings, Problems())
        text = render(status)
        assert status["gpu_slots"] == 2 and status["database"]["status"] == {"queued": 2}
        assert status["oldest_waiting_s"] is not None and status["queues"] == {"cpu": 2, "gpu": 0}
        assert "waiting: 2 queued in the store, 2 messages in the broker (cpu 2, gpu 0)" in text
        assert "g1: queue gpu, 1/2 busy" in text and "GPU slots: 2" in text and "oldest waiting submission:" in text
        assert status["stranded"] == {"no_message": [], "delivered_to_dead": [], "held_by_dead": []}
        assert "stranded, queued with no message in the broker (the reaper puts it back): none" in text
        store.start("s1", "gone-worker", lambda holder, started: True)  # held by a worker with no heartbeat
        status = gather(settings, Problems())
        assert status["stranded"]["held_by_dead"] == ["s1"]
        assert "running on a worker that is gone (the reaper puts it back): ['s1']" in render(status)
    finally:
        dispatcher.close()
        store.close()
        broker.flushdb()
