"""The reaper trusts the broker: against a real Redis (kombu's own lists and unacked set) and a real store, it sends
nothing for a submission whose message waits however long, gives one message back (at the head) to one whose message
was lost, delivered to a worker killed before it started, or held by a worker killed mid-judgement, acts only on what
two passes saw, and runs once per deployment at a time. Heartbeats are read only through their model: any other value
under their prefix is skipped and logged, never raised on."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
from kombu.connection import Connection
from sqlalchemy import update

from judge.queue import reaper, registry
from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.names import WORKER
from judge.queue.outage import OutageLog
from judge.queue.registry import RECONNECT_GRACE_S, WorkerInfo, connection_name, has_gpu_worker, live_workers
from judge.queue.store import Limits, SqlStore, Submission, now
from judge.queue.tables import SubmissionRow
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.deployment import wait_for
from tests.scale.problems import Problems
from web.config import WebSettings

pytestmark = pytest.mark.slow  # starts Redis and PostgreSQL: the full lane's, not the fast lane's

LIMITS = Limits(99, 99, 99)


PROBLEMS = Problems(FIXTURE_PROBLEMS)


@pytest.fixture()
def broker_url(redis_url) -> Iterator[str]:
    """A database of the session's Redis of this module's own, empty at the start."""
    url = redis_url.rsplit("/", 1)[0] + "/7"
    client = redis.Redis.from_url(url)
    client.flushdb()
    wait_for(lambda: client.info("server")["uptime_in_seconds"] >= RECONNECT_GRACE_S, 30, "Redis up a while")
    yield url
    client.flushdb()


@pytest.fixture()
def deployment(tmp_path, broker_url):
    store = SqlStore(f"sqlite:///{tmp_path / 'reaper.sqlite3'}")
    dispatcher = CeleryDispatcher(WebSettings(data_dir=tmp_path, queue_url=broker_url), store, PROBLEMS)
    client = redis.Redis.from_url(broker_url)
    yield store, dispatcher, client
    dispatcher.close()
    client.close()
    store.close()


def submitted(store: SqlStore, dispatcher: CeleryDispatcher, sid: str) -> str:
    submission = Submission(sid, "learner-0001", "900", "submit", "code", "queued", now())
    assert store.admit(submission, LIMITS).refused is None
    dispatcher.submit(sid)
    return sid


def sent_a_minute_ago(store: SqlStore) -> None:
    """Past the grace a web process has between storing a submission and sending it."""
    with store.session.begin() as s:
        s.execute(update(SubmissionRow).values(dispatched_at=now() - timedelta(seconds=60)))


def age(client: redis.Redis) -> None:
    """As if every suspect had first been seen CONFIRM_S earlier (a pass that long ago)."""
    for key, value in client.hgetall(reaper.SEEN).items():
        client.hset(reaper.SEEN, key, float(value) - reaper.CONFIRM_S)


def next_delivered(url: str) -> str:
    """The submission the next delivery of the cpu queue carries (taken and acknowledged here)."""
    with Connection(url) as connection:
        message = connection.SimpleQueue("cpu").get(timeout=5)
        message.ack()
        return str(message.headers["id"])


CONSUMER = """
import sys, time
import redis
from kombu.connection import Connection

url, worker, name = sys.argv[1:]
if worker:  # a worker's connection, named as judge.queue.worker names it
    client = redis.Redis.from_url(url, client_name=name)
    client.ping()
with Connection(url) as connection:
    message = connection.SimpleQueue("cpu").get(timeout=10)  # delivered: in kombu's unacked set until acked
    print(message.headers["id"], flush=True)
    time.sleep(600)
"""


class Consumer:
    """A process that takes one delivery of the cpu queue and holds it unacknowledged, as a worker mid-judgement
    does, until it is killed (SIGKILL: no restore at shutdown, as for a killed worker)."""

    def __init__(self, url: str, worker: str = ""):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CONSUMER, url, worker, connection_name(worker)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.took = self.proc.stdout.readline().strip()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def beat(client: redis.Redis, worker: str, holding: list[str] = []) -> None:  # noqa: B006 - read only
    info = WorkerInfo(name=worker, queue="cpu", concurrency=1, busy=1, gpu_slots=0, canary="-", busy_seconds=0.0)
    client.set(WORKER + worker, info.model_copy(update={"holding": holding}).model_dump_json(), ex=15)


def test_a_submission_that_waits_long_in_the_broker_is_neither_stranded_nor_sent_again(deployment, broker_url):
    store, dispatcher, client = deployment
    sid = submitted(store, dispatcher, "waits-long")
    with store.session.begin() as s:  # sent ten minutes ago, still waiting behind a long queue
        long_ago = now() - timedelta(minutes=10)
        s.execute(update(SubmissionRow).values(created_at=long_ago, dispatched_at=long_ago))
    assert reaper.stranded(store, dispatcher.broker, client).ids() == []
    for _ in range(2):
        assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 0
        age(client)
    assert dispatcher.broker.look().messages(sid) == 1
    assert next_delivered(broker_url) == sid


def test_a_lost_message_is_sent_again_first_once_two_passes_saw_it_lost(deployment, broker_url):
    store, dispatcher, client = deployment
    waiting = submitted(store, dispatcher, "ordinary")
    lost = submitted(store, dispatcher, "lost")
    held = dispatcher.broker.look()
    assert held.messages(lost) == 1 and held.depth["cpu"] == 2
    with Connection(broker_url) as connection:  # the broker loses one message (a Redis restarted without its data)
        queue = connection.SimpleQueue("cpu")
        first = queue.get(timeout=5)
        assert first.headers["id"] == waiting
        first.requeue()  # kombu's reject with requeue: back to the tail, behind `lost`
        queue.get(timeout=5).ack()  # `lost` taken and acknowledged: gone from the broker for good
    sent_a_minute_ago(store)
    assert reaper.stranded(store, dispatcher.broker, client).no_message == [lost]
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 0  # a suspect only
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 0  # not yet CONFIRM_S apart
    age(client)
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 1
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 0  # held now: never twice
    held = dispatcher.broker.look()
    assert held.messages(lost) == 1 and held.messages(waiting) == 1
    assert next_delivered(broker_url) == lost  # at the first priority: before what waited all along


def test_a_delivery_to_a_worker_killed_before_starting_it_is_put_back_at_the_head(deployment, broker_url, monkeypatch):
    store, dispatcher, client = deployment
    monkeypatch.setattr(reaper, "ORPHAN_S", 0.0)  # no wait for the heartbeats to announce it
    taken = submitted(store, dispatcher, "taken")
    behind = submitted(store, dispatcher, "behind")
    consumer = Consumer(broker_url)
    assert consumer.took == taken
    consumer.kill()  # before it started the submission: the row is queued, its message delivered and unacked
    sent_a_minute_ago(store)
    held = dispatcher.broker.look()
    assert not held.waiting[taken] and len(held.delivered[taken]) == 1
    assert reaper.stranded(store, dispatcher.broker, client).delivered_to_dead == [taken]
    live = redis.Redis.from_url(broker_url, client_name=connection_name("alive"))
    live.ping()  # a live worker: connected, and announcing that it holds the delivery (waiting for the store, say)
    beat(client, "alive", holding=[taken])
    assert reaper.stranded(store, dispatcher.broker, client).ids() == []
    live.close()
    client.delete(WORKER + "alive")
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 0
    age(client)
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 1
    held = dispatcher.broker.look()
    assert held.messages(taken) == 1 and held.waiting[taken] == 1  # the same message, restored: not a second one
    assert next_delivered(broker_url) == taken and next_delivered(broker_url) == behind


def test_a_submission_running_on_a_killed_worker_is_put_back_at_the_head_once(deployment, broker_url):
    store, dispatcher, client = deployment
    judged = submitted(store, dispatcher, "judged")
    behind = submitted(store, dispatcher, "behind")
    worker = Consumer(broker_url, worker="w-killed")
    assert worker.took == judged and store.start(judged, "w-killed", lambda *_: True) is not None
    beat(client, "w-killed", holding=[judged])
    assert reaper.stranded(store, dispatcher.broker, client).ids() == []  # alive: its heartbeat and its connection
    worker.kill()  # its heartbeat key lives on for up to its TTL; its connection closed with the process
    assert client.exists(WORKER + "w-killed")
    wait_for(lambda: reaper.stranded(store, dispatcher.broker, client).held_by_dead == [judged], 10, "seen dead")
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 0  # seen once: a suspect
    assert store.get(judged).status == "running"
    age(client)
    assert reaper.reap(store, dispatcher, client, dispatcher.settings, PROBLEMS) == 1
    assert store.get(judged).status == "queued"
    assert [e.kind for e in store.events_after(judged, 0)] == ["queued", "restarted"]  # the page clears its cases
    assert dispatcher.broker.look().messages(judged) == 1  # its own delivery, restored; no second message
    assert next_delivered(broker_url) == judged and next_delivered(broker_url) == behind


def test_one_reaping_pass_per_deployment_at_a_time(deployment, monkeypatch):
    store, dispatcher, client = deployment
    monkeypatch.setattr(reaper, "EVERY_S", 1.0)
    monkeypatch.setattr(reaper, "TICK_S", 0.05)
    passes: list[tuple[str, float, float]] = []
    lock = threading.Lock()

    def counted(*args) -> int:
        began = time.monotonic()
        time.sleep(0.2)  # a pass takes a while: another worker's tick falls inside it
        with lock:
            passes.append((threading.current_thread().name, began, time.monotonic()))
        return 0

    monkeypatch.setattr(reaper, "reap", counted)
    workers = [reaper.Reaper(store, dispatcher, client, dispatcher.settings, PROBLEMS) for _ in range(3)]
    for n, each in enumerate(workers):
        each._thread.name = f"worker-{n}"
        each.start()
    try:
        wait_for(lambda: len(passes) >= 4, 30, "four reaping passes")
    finally:
        for each in workers:
            each.stop()
    ordered = sorted(passes, key=lambda p: p[1])
    for before, after in zip(ordered, ordered[1:]):
        assert after[1] >= before[2], f"two passes at once: {before} and {after}"
        assert after[1] - before[1] >= reaper.EVERY_S * 0.9, f"passes closer than the lock's TTL: {ordered}"


def test_anything_but_a_heartbeat_under_the_prefix_is_skipped_and_logged(deployment, caplog, monkeypatch):
    store, dispatcher, client = deployment
    monkeypatch.setattr(registry, "SKIPPED", OutageLog(registry.log))  # not held back by an earlier test's line
    beat(client, "w-good")
    client.set(WORKER + "w-good:probe", "1", ex=15)  # what a worker's broker probe once wrote here
    client.hset(WORKER + "a-hash", mapping={"name": "a-hash"})
    client.set(WORKER + "half", '{"name": "half", "queue": "gpu"}')
    client.set(WORKER + "borrowed", client.get(WORKER + "w-good"))  # a heartbeat under another worker's name
    client.set(WORKER + "junk", b"\xff\xfe not json")
    with caplog.at_level(logging.WARNING, logger="web.queue.registry"):
        assert [w.name for w in live_workers(client)] == ["w-good"]
        assert has_gpu_worker(client) is False
    assert "heartbeat: skipped 'practice:worker:" in caplog.text  # one line (then one per 30 s), not one per key
    from judge.queue.status import gather, render

    text = render(gather(dispatcher.settings, PROBLEMS))
    assert "live workers: 1" in text and "w-good: queue cpu" in text
