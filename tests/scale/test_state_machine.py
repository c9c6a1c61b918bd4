"""Every order of crash and redelivery through the store's state machine ends with exactly one report."""

from __future__ import annotations

import json
import secrets
import threading
from datetime import UTC, datetime, timedelta

import pytest

from judge.queue.store import Limits, SqlStore, Submission, now, require_migrated

LIMITS = Limits(queue=100, learner=100, address=100)


def open_store(kind: str, request: pytest.FixtureRequest, tmp_path) -> SqlStore:
    if kind == "sqlite":
        return SqlStore(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    return SqlStore(request.getfixturevalue("postgres_url"), migrate_schema=True)


@pytest.fixture(scope="session")
def shared_postgres(postgres_root):
    """One migrated database for the state-machine tests (each uses submissions of its own): migrating a fresh
    database for each would cost a second a test."""
    from sqlalchemy import create_engine, text

    engine = create_engine(postgres_root, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text("CREATE DATABASE practice_state_machine"))
    engine.dispose()
    store = SqlStore(postgres_root.rsplit("/", 1)[0] + "/practice_state_machine", migrate_schema=True)
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "postgresql":
        yield request.getfixturevalue("shared_postgres")
        return
    s = open_store("sqlite", request, tmp_path)
    yield s
    s.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_store(request, tmp_path):
    """An empty database: for tests that count every submission in it."""
    s = open_store(request.param, request, tmp_path)
    yield s
    s.close()


def new(store: SqlStore, sid: str | None = None, learner: str = "learner-0001", address: str | None = None) -> str:
    sid = sid or secrets.token_urlsafe(12)
    sub = Submission(sid, learner, "900", "submit", "code", "queued", now(), address=address)
    assert store.admit(sub, LIMITS).refused is None
    return sid


def report(verdict: str) -> str:
    return json.dumps({"verdict": verdict})


def kinds(store: SqlStore, sid: str) -> list[str]:
    return [e.kind for e in store.events_after(sid, 0)]


def reports(store: SqlStore, sid: str) -> list[str]:
    sub = store.get(sid)
    assert sub is not None
    return [] if sub.report is None else [json.loads(sub.report)["verdict"]]


def dead(holder, started):  # the takeover rule of a worker that sees the holder gone
    return True


def alive(holder, started):
    return False


def test_duplicate_delivery_after_the_report_judges_nothing(store):
    sid = new(store)
    first = store.start(sid, "w1", dead)
    assert first is not None and first.attempts == 1
    assert store.finish(sid, report("accepted"), attempt=1)
    assert store.start(sid, "w2", dead) is None  # redelivered after the report: acked, not judged
    assert not store.finish(sid, report("wrong_answer"))
    assert reports(store, sid) == ["accepted"]
    assert kinds(store, sid) == ["queued", "running", "done"]


def test_worker_killed_mid_task_then_redelivered(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    assert store.add_event(sid, "collected", {"total": 3}, attempt=1) is not None
    # w1 is SIGKILLed; the broker hands the task to w2 after the visibility timeout
    second = store.start(sid, "w2", dead)
    assert second is not None and second.attempts == 2 and second.worker == "w2"
    # the dead attempt's half-told story is dropped, and the new one says it restarted (a page clears its cases)
    assert kinds(store, sid) == ["queued", "restarted", "running"]
    assert store.finish(sid, report("accepted"), attempt=2)
    assert reports(store, sid) == ["accepted"]
    assert kinds(store, sid)[-1] == "done" and kinds(store, sid).count("done") == 1


def test_redelivery_while_the_holder_still_judges_is_refused(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    assert store.start(sid, "w2", alive) is None  # a live holder, inside its hard limit: not taken over
    assert store.start(sid, "w2", None) is None  # no takeover rule (the in-process pool): never
    assert store.finish(sid, report("accepted"), attempt=1)
    assert reports(store, sid) == ["accepted"]


def test_slow_first_attempt_finishes_before_the_takeover(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    store.start(sid, "w2", dead)
    assert store.finish(sid, report("accepted"), attempt=1)  # the first report wins: it is as good a judgement
    assert store.add_event(sid, "case", {}, attempt=2) is None  # the second attempt's events are dropped now
    assert not store.finish(sid, report("wrong_answer"), attempt=2)
    assert reports(store, sid) == ["accepted"]


def test_takeover_finishes_first_and_the_stale_attempt_is_fenced(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    store.start(sid, "w2", dead)
    assert store.add_event(sid, "case", {"index": 1}, attempt=1) is None  # the superseded attempt is fenced
    assert store.add_event(sid, "case", {"index": 1}, attempt=2) is not None
    assert store.finish(sid, report("accepted"), attempt=2)
    assert not store.finish(sid, report("accepted"), attempt=1)
    assert kinds(store, sid) == ["queued", "restarted", "running", "case", "done"]


def test_crash_before_start_is_judged_on_redelivery(store):
    sid = new(store)  # delivered, worker killed before it marked anything
    assert store.start(sid, "w2", alive) is not None  # still queued: any delivery may start it
    assert store.finish(sid, report("wrong_answer"))
    assert reports(store, sid) == ["wrong_answer"]


def test_two_deliveries_race_for_a_queued_submission(store):
    sid = new(store)
    assert store.start(sid, "w1", alive) is not None
    assert store.start(sid, "w2", alive) is None  # the loser sees a live holder and does nothing
    assert store.get(sid).attempts == 1


def test_reaper_requeue_then_the_old_holder_finishes(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    assert store.requeue(sid, {"position": 1}, attempt=1)
    assert not store.requeue(sid, {"position": 1}, attempt=1) or store.get(sid).status == "queued"
    assert store.finish(sid, report("accepted"), attempt=1)  # w1 was only slow
    assert store.start(sid, "w2", dead) is None  # the re-dispatched task finds it done
    assert reports(store, sid) == ["accepted"]


def test_reaper_requeue_is_refused_once_a_new_attempt_began(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    store.start(sid, "w2", dead)
    assert not store.requeue(sid, {"position": 1}, attempt=1)  # the reaper saw attempt 1: stale
    assert store.get(sid).status == "running"


def test_reaper_requeue_then_redelivery_of_the_old_message(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    store.requeue(sid, {"position": 1}, attempt=1)
    assert store.start(sid, "w2", dead) is not None  # whichever message arrives first judges
    assert store.start(sid, "w3", alive) is None  # the other finds a live holder
    assert store.finish(sid, report("accepted"), attempt=2)
    assert reports(store, sid) == ["accepted"]


def test_cancel_while_waiting_then_delivery(store):
    sid = new(store)
    assert store.cancel(sid)
    assert store.start(sid, "w1", dead) is None
    assert store.get(sid).status == "cancelled" and kinds(store, sid)[-1] == "cancelled"


def test_cancel_while_running_fences_the_judgement(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    assert store.cancel(sid)
    assert store.add_event(sid, "case", {}, attempt=1) is None
    assert not store.finish(sid, report("accepted"), attempt=1)
    assert store.start(sid, "w2", dead) is None  # a redelivery of a cancelled task judges nothing
    assert reports(store, sid) == [] and store.get(sid).status == "cancelled"


def test_cancel_after_the_report_is_refused(store):
    sid = new(store)
    store.start(sid, "w1", dead)
    store.finish(sid, report("accepted"), attempt=1)
    assert not store.cancel(sid)
    assert store.get(sid).status == "done"


def test_restart_of_the_in_process_pool_requeues_and_judges_once(store):
    sid = new(store)
    store.start(sid)
    store.add_event(sid, "collected", {"total": 1})
    assert store.requeue(sid, {"position": 1})  # resume() after a killed server
    assert store.start(sid) is not None
    assert store.finish(sid, report("accepted"))
    assert kinds(store, sid) == ["queued", "restarted", "running", "done"]
    never_started = new(store)
    assert store.requeue(never_started, {"position": 1})  # queued, never begun: nothing to restart
    assert kinds(store, never_started) == ["queued"]


def test_waiting_and_running_rows_are_found_by_when_they_were_sent_or_started(store):
    sid = new(store)
    later = now() + timedelta(seconds=1)
    assert sid in store.waiting_since(later) and sid not in store.waiting_since(now() - timedelta(seconds=60))
    store.mark_dispatched(sid)
    assert sid in store.waiting_since(later)
    store.start(sid, "w1", dead)
    assert sid not in store.waiting_since(later)
    assert sid in [s.id for s in store.running_since(later)]
    assert store.running_since(datetime(2000, 1, 1, tzinfo=UTC)) == []


def test_admission_limits_queue_learner_and_address(fresh_store):
    store = fresh_store
    limits = Limits(queue=6, learner=2, address=3)

    def admit(sid: str, learner: str, address: str | None = None) -> str | None:
        return store.admit(
            Submission(sid, learner, "900", "run", "x", "queued", now(), address=address), limits
        ).refused

    assert admit("a1", "alice-00000000000") is None
    assert admit("a2", "alice-00000000000") is None
    assert admit("a3", "alice-00000000000") == "learner"
    # without cookies: a new learner each time, one address
    assert [admit(f"n{i}", f"anon-{i:016d}", "10.0.0.9") for i in range(4)] == [None, None, None, "address"]
    assert admit("b1", "bob-000000000000000") is None
    assert admit("b2", "carol-0000000000000") == "queue"  # 6 waiting
    store.start("a1", "w1", dead)
    assert admit("b3", "carol-0000000000000") is None  # a running one no longer waits
    assert store.get("a3") is None and store.get("n3") is None  # refused ones were never stored


def test_a_database_left_unmigrated_is_refused_with_the_command(postgres_url):
    from judge.queue.store import Unmigrated, make_engine

    with pytest.raises(Unmigrated, match="judge db upgrade"):
        SqlStore(postgres_url)
    engine = make_engine(postgres_url)
    with pytest.raises(Unmigrated):
        require_migrated(engine)
    engine.dispose()


def test_two_processes_admitting_at_once_never_pass_a_limit(fresh_store):
    """Two stores on one database (as two web processes have), 16 threads racing: the limit holds exactly."""
    other = SqlStore(fresh_store.url, migrate_schema=False)
    limits = Limits(queue=100, learner=4, address=100)
    results: list[str | None] = []
    lock = threading.Lock()

    def admit(store: SqlStore, n: int) -> None:
        sub = Submission(f"race-{n}", "same-learner-00001", "900", "run", "x", "queued", now())
        refused = store.admit(sub, limits).refused
        with lock:
            results.append(refused)

    threads = [threading.Thread(target=admit, args=((fresh_store, other)[n % 2], n)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    other.close()
    assert results.count(None) == 4 and results.count("learner") == 12
    assert fresh_store.unfinished_count("same-learner-00001") == 4


@pytest.mark.parametrize("other", ["cancel", "requeue"])
def test_every_order_of_two_deliveries_and_a_cancel_or_requeue(tmp_path, other):
    """All 120 orders of: worker A starts, A finishes, worker B (a redelivery: A is dead, or only slow) starts,
    B finishes, and the learner cancels or the reaper requeues. Each order ends with at most one outcome: one
    report and one `done` event, or `cancelled` and no report; the closing event is the last one."""
    import itertools

    store = SqlStore(f"sqlite:///{tmp_path / 'orders.sqlite3'}")
    steps = ["start_a", "finish_a", "start_b", "finish_b", other]
    for n, order in enumerate(itertools.permutations(steps)):
        sid = new(store, f"order-{n}")
        attempt: dict[str, int | None] = {"a": None, "b": None}
        stored = []
        for step in order:
            if step.startswith("start_"):
                started = store.start(sid, step[-1], dead)
                attempt[step[-1]] = started.attempts if started else None
            elif step.startswith("finish_"):
                who = step[-1]
                if attempt[who] is not None and store.finish(sid, report(f"by {who}"), attempt=attempt[who]):
                    stored.append(who)
            elif step == "cancel":
                store.cancel(sid)
            else:
                store.requeue(sid, {"position": 1}, attempt=store.get(sid).attempts)
        final = store.get(sid)
        kinds_now = kinds(store, sid)
        closing = [k for k in kinds_now if k in ("done", "cancelled")]
        assert len(stored) <= 1, order
        assert len(closing) <= 1 and (not closing or kinds_now[-1] == closing[0]), (order, kinds_now)
        if final.status == "done":
            assert closing == ["done"] and final.report is not None and len(stored) == 1, order
        elif final.status == "cancelled":
            assert closing == ["cancelled"] and final.report is None and not stored, order
        else:
            assert not closing and final.report is None, order
    store.close()
