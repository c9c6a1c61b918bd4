"""`judge worker --concurrency 2`: a duplicate message of a submission one slot is judging, delivered to the second
slot, judges nothing and restarts nothing (the row is held under the worker's own name, which once let the second
slot take it over): one attempt, one `running`, one verdict, and both messages acknowledged."""

from __future__ import annotations

import os
import shutil

import pytest
import redis

from judge.queue.dispatcher import CeleryDispatcher
from judge.queue.names import WORKER
from judge.queue.registry import WorkerInfo, connection_name
from judge.queue.store import Limits, SqlStore, Submission, now
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.burst import SLOW
from tests.faults.deployment import wait_for
from tests.scale.problems import Problems
from tests.scale.processes import judge_cli, worker
from web.config import WebSettings

pytestmark = pytest.mark.slow


def test_a_duplicate_delivered_to_a_second_slot_is_dropped_not_judged_again(tmp_path, redis_url, postgres_url):
    folder = tmp_path / "problems"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", folder / "900-echo")
    url = redis_url.rsplit("/", 1)[0] + "/9"  # a database of this test's own
    client = redis.Redis.from_url(url)
    client.flushdb()
    env = {**os.environ, "PRACTICE_QUEUE_URL": url, "PRACTICE_DATABASE_URL": postgres_url}
    env["PRACTICE_PROBLEMS_DIR"] = str(folder)
    assert judge_cli(env, "db", "upgrade").returncode == 0
    settings = WebSettings(data_dir=tmp_path, queue_url=url, database_url=postgres_url)
    store = SqlStore(postgres_url)

    dispatcher = CeleryDispatcher(settings, store, Problems(folder))
    slots = worker(env, tmp_path / "slots.log", "slots", concurrency=2).start()
    try:
        wait_for(lambda: client.exists(WORKER + "slots"), 180, f"the worker registered\n{slots.tail()}")
        sid = "judged-once"
        store.admit(Submission(sid, "learner-0001", "900", "submit", SLOW, "queued", now()), Limits(9, 9, 9))
        dispatcher.submit(sid)
        wait_for(lambda: (s := store.get(sid)) is not None and s.status == "running", 60, "the first slot started")
        assert dispatcher.dispatch(sid)  # a duplicate message (a re-send that should not have been): slot two gets it
        wait_for(lambda: "delivered again while another slot" in slots.tail(), 30, "slot two dropped it")
        wait_for(lambda: store.get(sid).status == "done", 60, "the verdict")
        done = store.get(sid)
        kinds = [e.kind for e in store.events_after(sid, 0)]
        assert done.attempts == 1 and kinds.count("running") == 1 and "restarted" not in kinds, (done, kinds)
        assert kinds.count("done") == 1 and '"accepted"' in done.report
        wait_for(lambda: dispatcher.broker.look().messages(sid) == 0, 30, "both messages acknowledged")
        beat = WorkerInfo.model_validate_json(client.get(WORKER + "slots"))
        assert beat.concurrency == 2
        names = {c.get("name") for c in client.client_list()}
        assert connection_name("slots") in names  # its connections carry its name: a kill shows at once
    finally:
        slots.stop()
        dispatcher.close()
        store.close()
        client.flushdb()
