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
    assert sid in store.undispatched(later)
    store.mark_dispatched(sid)
    assert sid not in store.undispatched(later)
    store.start(sid, "w1", dead)
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


def test_the_reaper_resends_what_neither_broker_nor_worker_holds(tmp_path):
    from sqlalchemy import update

    from judge.problem.folders import ProblemSet
    from judge.queue.reaper import reap
    from judge.queue.tables import SubmissionRow
    from tests.conftest import FIXTURE_PROBLEMS
    from web.config import WebSettings

    class Problems:
        problem_set = ProblemSet(FIXTURE_PROBLEMS)

        def problems(self):
            return self.problem_set.all()

        def problem(self, problem_id):
            return self.problem_set.get(problem_id)

    store = SqlStore(f"sqlite:///{tmp_path / 'reaper.sqlite3'}")  # before Sent, whose submit marks it

    class Heartbeats:  # Redis as the reaper asks it: which workers have a live key
        def exists(self, key):
            return int(key.endswith("w-live"))

    class Sent:
        visibility_timeout_s = 10.0
        redis = Heartbeats()

        def __init__(self):
            self.ids: list[str] = []

        def submit(self, sid: str) -> None:
            self.ids.append(sid)
            store.mark_dispatched(sid)

    settings = WebSettings(data_dir=tmp_path, queue_hard_margin_s=5)  # 900: wall 6 s, hard limit 11 s
    long_ago = now() - timedelta(seconds=60)
    stuck, fresh, unsent, waiting = (new(store, sid) for sid in ("stuck", "fresh", "unsent", "waiting"))
    for sid in (stuck, fresh, waiting):
        store.mark_dispatched(sid)
    store.start(stuck, "w-gone", dead)
    store.start(fresh, "w-live", dead)
    with store.session.begin() as s:  # stuck started a minute ago (past 11 s + 10 s); unsent was stored then
        s.execute(update(SubmissionRow).where(SubmissionRow.id == stuck).values(started_at=long_ago))
        s.execute(update(SubmissionRow).where(SubmissionRow.id == unsent).values(created_at=long_ago))
    sent = Sent()
    assert reap(store, sent, settings, Problems(), {}) == 2
    assert sorted(sent.ids) == ["stuck", "unsent"]
    assert store.get(stuck).status == "queued" and store.get(fresh).status == "running"
    assert reap(store, sent, settings, Problems(), {}) == 0  # nothing is sent twice
    store.close()


def test_the_reaper_takes_back_what_a_dead_worker_holds_and_resends_what_waits(tmp_path):
    """A row held by a worker with no heartbeat is re-dispatched once it has been seen dead for HELD_GRACE_S (not
    on the first sighting: a broker restart drops every heartbeat for a beat); a queued row sent long ago with
    nothing taking it (a message the broker deleted) is sent again; a row held by a live worker stays."""
    from sqlalchemy import update

    from judge.problem.folders import ProblemSet
    from judge.queue import reaper as reaper_module
    from judge.queue.reaper import reap, stranded
    from judge.queue.tables import SubmissionRow
    from tests.conftest import FIXTURE_PROBLEMS
    from web.config import WebSettings

    class Problems:
        problem_set = ProblemSet(FIXTURE_PROBLEMS)

        def problems(self):
            return self.problem_set.all()

        def problem(self, problem_id):
            return self.problem_set.get(problem_id)

    class Heartbeats:
        def exists(self, key):
            return int(key.endswith("w-live"))

    store = SqlStore(f"sqlite:///{tmp_path / 'dead.sqlite3'}")

    class Sent:
        visibility_timeout_s = 600.0
        redis = Heartbeats()

        def __init__(self):
            self.ids: list[str] = []

        def submit(self, sid: str) -> None:
            self.ids.append(sid)
            store.mark_dispatched(sid)

    settings = WebSettings(data_dir=tmp_path)
    held, live, lost = (new(store, sid) for sid in ("held", "live", "lost"))
    for sid in (held, live, lost):
        store.mark_dispatched(sid)
    store.start(held, "w-gone", dead)
    store.start(live, "w-live", dead)
    a_while_ago = now() - timedelta(seconds=90)
    with store.session.begin() as s:
        s.execute(update(SubmissionRow).where(SubmissionRow.id.in_([held, live])).values(started_at=a_while_ago))
        s.execute(update(SubmissionRow).where(SubmissionRow.id == lost).values(dispatched_at=a_while_ago))
    found = stranded(store, Heartbeats())
    assert found.held_by_dead == ["held"] and found.waiting == ["lost"]
    assert "held" in found.describe() and "lost" in found.describe()
    sent, suspects = Sent(), {}
    assert reap(store, sent, settings, Problems(), suspects) == 1  # the lost message; held is only a suspect yet
    assert sent.ids == ["lost"] and store.get(held).status == "running" and "held" in suspects
    suspects["held"] -= reaper_module.HELD_GRACE_S  # as if seen dead a grace period ago
    assert reap(store, sent, settings, Problems(), suspects) == 1
    assert sent.ids == ["lost", "held"] and store.get(held).status == "queued"
    assert store.get(live).status == "running" and stranded(store, Heartbeats()).ids() == []
    store.close()


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
