"""Nothing lost under faults: real PostgreSQL and Redis (their data on one small tmpfs), one web process and two
queue workers (two slots) take a burst of submissions through the public API while one fault is injected at a time.
For each: every submission taken gets exactly one right verdict, no answer is a 5xx other than 503, every worker is
alive at the end, /api/health never says ok while work is stranded, never names as stranded what the broker holds,
never answers exception text, and /api/health/live stays 200 while the database is up (tests.faults.burst). And:
the broker receives at most 1.2 task messages per submission without faults and through a database outage; a
submission interrupted by a killed worker is judged again first, before what waited behind it; `judge status`
answers through a full disk; the page draws a restarted judgement once.

The bursts are small (16 submissions of the fixture problem 900, a second or a few a judgement; 12 slow ones for the
killed workers; 8 or 4 for the disk, the broker and the web process) to fit CI's time; bench/faults.py runs the same
faults with bursts of 40 and prints the table of docs/deploy.md."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import httpx
import pytest
import redis
from playwright.sync_api import expect

from judge.queue.names import WORKER
from judge.queue.store import SqlStore
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.burst import MESSAGES_PER_SUBMISSION, RECOVERY_S, SLOW, Outcome, codes, run_fault
from tests.faults.deployment import Deployment, Kill, StatusRuns, data_disk, wait_for

pytestmark = pytest.mark.slow
BURST = 16
KILL_BURST = 12  # all slow: a queue still waits when the killed submission is put back
BASELINE: dict[tuple[str, ...], float] = {}  # a burst's codes -> the fault-free burst's duration in this run


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
    """After a fault: both workers alive and registered (a restarted one too: the next fault starts with two slots),
    health ok again within the recovery bound."""
    broker = redis.Redis.from_url(deploy.redis.url)
    for name, process in deploy.workers.items():
        assert process.alive(), f"worker {name} died:\n{process.tail()}"
        wait_for(partial(broker.exists, WORKER + name), 180, f"worker {name} registered\n{process.tail()}")

    def healthy() -> bool:
        try:
            return httpx.get(deploy.web.url + "/api/health", timeout=10).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(healthy, RECOVERY_S, f"health ok again\n{deploy.logs()}")


def said(what: str, outcome: Outcome) -> None:
    base = BASELINE.get(tuple(outcome.codes))
    extra = f", {outcome.duration_s - base:+.1f} s over the fault-free burst" if base else ""
    print(f"{what}: {len(outcome.seen.accepted)} judged in {outcome.duration_s:.1f} s{extra}, last verdict "
          f"{outcome.recovered_s:.1f} s after the fault, {outcome.per_submission():.2f} task messages a submission, "
          f"{outcome.seen.statuses.count(503)} answers 503")  # fmt: skip


def test_a_burst_without_faults_sends_one_message_a_submission(deploy):
    outcome = run_fault(deploy, lambda: None, lambda: None, 0, codes(BURST))
    BASELINE[tuple(outcome.codes)] = outcome.duration_s
    said("no fault", outcome)
    assert outcome.per_submission() <= MESSAGES_PER_SUBMISSION, deploy.logs()
    assert not any(before or after for before, _, after in outcome.seen.health), "stranded without a fault"
    all_well(deploy)


def test_the_database_stopped_for_10_s(deploy):
    outcome = run_fault(deploy, deploy.pg.stop, deploy.pg.start, 10, codes(BURST))
    said("database stopped 10 s", outcome)
    assert outcome.recovered_s <= RECOVERY_S, deploy.logs()
    assert outcome.per_submission() <= MESSAGES_PER_SUBMISSION, deploy.logs()
    all_well(deploy)


def interrupted_goes_first(kill: Kill, outcome: Outcome) -> None:
    """The killed submission's next attempt started before every submission that waited in the queue when it was put
    back, but one (a slot may take the head of the queue in the instant between the requeue and the put-back)."""
    assert kill.sid in outcome.finished and kill.waiting is not None, kill
    ahead = [sid for sid in kill.waiting if outcome.started[sid] < outcome.started[kill.sid]]
    assert len(ahead) <= 1, f"{len(ahead)} of {len(kill.waiting)} waiting went before the interrupted one: {ahead}"
    own_wait = outcome.finished[kill.sid].timestamp() - kill.at
    print(f"  the killed submission's verdict came {own_wait:.1f} s after the kill, {len(ahead)} of "
          f"{len(kill.waiting)} waiting went before it")  # fmt: skip


def test_a_worker_killed_mid_judgement_and_restarted_judges_the_interrupted_first(deploy):
    kill = Kill(deploy, restart=True)
    outcome = run_fault(deploy, kill, kill.heal, 1, [SLOW] * KILL_BURST)
    said("worker killed and restarted", outcome)
    interrupted_goes_first(kill, outcome)
    all_well(deploy)


def test_a_worker_killed_and_left_dead_is_noticed_and_its_work_goes_first(deploy):
    kill = Kill(deploy, restart=False)
    try:
        outcome = run_fault(deploy, kill, kill.heal, 1, [SLOW] * KILL_BURST)
    finally:
        deploy.restart_worker(kill.name or "w1")
    said("worker killed, left dead", outcome)
    interrupted_goes_first(kill, outcome)
    assert outcome.seen.live and all(status == 200 for _, status in outcome.seen.live)  # a proxy keeps the web
    all_well(deploy)


def test_the_data_disk_full_for_20_s_then_status_and_health_answer(deploy):
    with StatusRuns(deploy) as status:
        outcome = run_fault(deploy, deploy.filler.fill, deploy.filler.free, 20)
        after = time.monotonic()
        wait_for(lambda: status.finished_after(after) >= 2, 60, "two `judge status` runs after the disk was freed")
    said(f"disk full 20 s (postgres restarted {deploy.pg.restarts} times)", outcome)
    assert not [run for run in status.runs if "Traceback" in run[2]], status.runs
    assert all(rc in (0, 1) for _, rc, _ in status.runs), status.runs  # 1: a database or broker away, one line
    assert all(rc == 0 for began, rc, _ in status.runs if began > after), status.runs
    assert outcome.recovered_s <= RECOVERY_S, deploy.logs()
    all_well(deploy)


def test_the_broker_stopped_for_10_s(deploy):
    outcome = run_fault(deploy, deploy.redis.stop, deploy.redis.start, 10)
    said("broker stopped 10 s", outcome)
    assert outcome.recovered_s <= RECOVERY_S, deploy.logs()
    all_well(deploy)


def test_the_web_process_killed(deploy):
    outcome = run_fault(deploy, deploy.web.kill, deploy.restart_web, 2, codes(4))
    said(f"web killed ({outcome.seen.unreachable} refused connections)", outcome)
    assert outcome.recovered_s <= RECOVERY_S, deploy.logs()
    all_well(deploy)


# Run mode splits 900's two public cases over two pairs: both start about together, and `big` sleeps long enough for its
# worker to be killed while the page shows `small` done and `big` running.
SLOW_BIG = "import time\n\n\ndef add(a, b):\n    if a.numel() == 2:\n        time.sleep(4)\n    return a + b\n"


@pytest.mark.browser
def test_the_page_draws_a_restarted_judgement_once(deploy, chromium):
    page = chromium.new_page()
    page.set_default_timeout(120_000)
    page.goto(f"{deploy.web.url}/problems/900")
    page.wait_for_selector(".cm-content")
    from tests.web.test_browser import replace_code

    replace_code(page, SLOW_BIG)
    page.click("#run")
    cases = page.locator("#cases .case .case-name")
    cases.filter(has_text="test_add[small]").wait_for()
    kill = Kill(deploy, restart=True)
    kill()  # the worker judging it, while `big` sleeps
    kill.heal()
    expect(page.locator("#cases .case")).to_have_count(0, timeout=60_000)  # the first attempt's, cleared
    cases.filter(has_text="test_add[small]").wait_for()  # the second attempt's
    # Its two pairs start about together, not at one instant: `small` can end before `big` has said it started (a
    # parked pair starts its first case within a few ms). `big` then runs for 4 s: the line names it once.
    expect(page.locator("#running-case")).to_contain_text("test_add[big]")
    running = page.inner_text("#running-case")
    assert page.locator("#run").is_disabled(), "still judging"
    assert running.count("test_add[big]") == 1, running
    page.wait_for_selector("#run:enabled")
    names = Counter(page.locator("#cases .case .case-name").all_inner_texts())
    assert names and set(names.values()) == {1}, names
    store = SqlStore(deploy.pg.url)
    try:
        kinds = [e.kind for e in store.events_after(kill.sid, 0)]
    finally:
        store.close()
    assert "restarted" in kinds and kinds.count("done") == 1, kinds
    page.close()
    all_well(deploy)


@pytest.fixture()
def chromium(fresh_browser_context):
    """A Chromium context of its own, on the process's one Playwright (tests/conftest.py)."""
    return fresh_browser_context
