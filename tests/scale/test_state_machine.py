"""Every order of crash and redelivery through the store's state machine ends with exactly one report."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from web.store import Limits, SqlStore, Submission, now, require_migrated

LIMITS = Limits(queue=100, learner=100, address=100)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
        s = SqlStore(url)
    else:
        url = request.getfixturevalue("postgres_url")
        s = SqlStore(url, migrate_schema=True)
    yield s
    s.close()


def new(store: SqlStore, sid: str = "s1", learner: str = "learner-0001", address: str | None = None) -> str:
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
    assert kinds(store, sid) == ["queued", "running"]  # the dead attempt's half-told story is dropped
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
    assert kinds(store, sid) == ["queued", "running", "case", "done"]


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
    assert kinds(store, sid) == ["queued", "running", "done"]


def test_undispatched_and_overdue_are_found(store):
    sid = new(store)
    later = now() + timedelta(seconds=1)
    assert store.undispatched(later) == [sid]
    store.mark_dispatched(sid)
    assert store.undispatched(later) == []
    store.start(sid, "w1", dead)
    assert [s.id for s in store.running_since(later)] == [sid]
    assert store.running_since(datetime(2000, 1, 1, tzinfo=UTC)) == []


def test_admission_limits_queue_learner_and_address(store):
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
    from web.store import Unmigrated, make_engine

    with pytest.raises(Unmigrated, match="judge db upgrade"):
        SqlStore(postgres_url)
    engine = make_engine(postgres_url)
    with pytest.raises(Unmigrated):
        require_migrated(engine)
    engine.dispose()
