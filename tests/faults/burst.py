"""A burst of submissions through the public API while a fault is injected, and what the operator and the learner
saw meanwhile: every answer's status, /api/health beside the truth of what was stranded (asked of the store and the
broker directly), /api/health/live, each verdict, and every task message the broker received for the burst."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import redis

from judge.queue.broker import Broker
from judge.queue.celery_app import make_celery
from judge.queue.reaper import KINDS, stranded
from judge.queue.settings import QueueSettings
from judge.queue.store import SqlStore
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.deployment import Beside, Deployment
from tests.faults.messages import TaskMessages

ACCEPTED = (FIXTURE_PROBLEMS / "900-echo" / "solutions" / "reference.py").read_text()
SLOW = "import time\n\ntime.sleep(3)  # holds its worker long enough to be hurt mid-judgement\n\n\n" + ACCEPTED
WRONG_FILE = FIXTURE_PROBLEMS / "900-echo" / "solutions" / "wrong" / "subtracts.py"
WRONG = WRONG_FILE.read_text()
EXPECT = {ACCEPTED: "accepted", SLOW: "accepted", WRONG: WRONG.splitlines()[0].removeprefix("# expect: ")}
MIX = [ACCEPTED, WRONG, SLOW, ACCEPTED]  # a burst is this, repeated
RECOVERY_S = 60.0  # the bound of the CI's small bursts: every verdict within this long of the fault's end
EXCEPTION = re.compile(r"\b\w*(Error|Exception)\b|Traceback")  # what health's body must never hold
MESSAGES_PER_SUBMISSION = 1.2  # sends, re-sends and put-backs the broker may receive per submission


def codes(n: int) -> list[str]:
    return (MIX * (n // len(MIX) + 1))[:n]


@dataclass
class Seen:
    statuses: list[int] = field(default_factory=list)  # every HTTP answer the learners' clients got
    unreachable: int = 0  # connections refused or cut (the web process itself down)
    health: list[tuple[bool, int, bool]] = field(default_factory=list)  # (stranded before, health status, after)
    false_alarms: list[str] = field(default_factory=list)  # stranded named by health while the broker held them
    exception_bodies: list[str] = field(default_factory=list)  # health bodies with exception text in them
    live: list[tuple[bool, int]] = field(default_factory=list)  # (database up, /api/health/live status)
    reads: list[tuple[str, int]] = field(default_factory=list)  # (what, status) of the learners' and operators' GETs
    accepted: dict[str, str] = field(default_factory=dict)  # id -> expected verdict


@dataclass
class Outcome:
    seen: Seen
    codes: list[str]  # what the burst submitted, in order
    began: float  # time.time() of the first submission sent
    duration_s: float  # from the first submission sent to the last verdict
    recovered_s: float  # from the fault's end to the last verdict
    messages: int  # task messages the broker received for the burst's submissions
    finished: dict[str, datetime]  # id -> when its verdict was stored
    started: dict[str, datetime]  # id -> when its last attempt started

    def per_submission(self) -> float:
        return self.messages / len(self.seen.accepted)


def post(url: str, code: str, seen: Seen, lock: threading.Lock, deadline_s: float = 240) -> None:
    """Submit as the page does: a 503 (or a server that is down) is waited out and sent again."""
    began = time.monotonic()
    while time.monotonic() - began < deadline_s:
        try:
            response = httpx.post(
                url + "/api/submissions", json={"problem_id": "900", "code": code, "mode": "submit"}, timeout=30
            )
        except httpx.HTTPError:
            with lock:
                seen.unreachable += 1
            time.sleep(1)
            continue
        with lock:
            seen.statuses.append(response.status_code)
        if response.status_code == 202:
            with lock:
                seen.accepted[response.json()["id"]] = EXPECT[code]
            return
        if response.status_code != 503:
            return  # a refusal the test reports (only 503 is allowed during a fault)
        time.sleep(min(float(response.headers.get("Retry-After", "5")), 5))
    raise AssertionError(f"a submission was never taken in {deadline_s:.0f} s")


def named_stranded(body: dict[str, Any]) -> dict[str, list[str]]:
    """The ids /api/health names as stranded, by kind (judge.queue.reaper.Stranded.describe)."""
    text = str(body.get("submissions", ""))
    found: dict[str, list[str]] = {}
    for kind, what in KINDS.items():
        hit = re.search(re.escape(what) + r": ([^;]+)", text)
        if hit:
            found[kind] = [sid.strip() for sid in hit.group(1).split(",")]
    return found


class Truth:
    """The store and the broker, asked directly (as the reaper asks them), by a process of the test's own."""

    def __init__(self, deploy: Deployment):
        settings = QueueSettings(queue_url=deploy.redis.url, database_url=deploy.pg.url)
        self.store = SqlStore(deploy.pg.url)
        self.app = make_celery(settings, 360)
        self.broker = Broker(self.app)
        self.client = redis.Redis.from_url(deploy.redis.url, socket_timeout=2)

    def stranded(self) -> set[str] | None:
        try:
            return set(stranded(self.store, self.broker, self.client).ids())
        except Exception:  # noqa: BLE001 - the store or the broker is down: nobody can tell
            return None

    def broker_holds(self) -> set[str] | None:
        try:
            held = self.broker.look()
        except Exception:  # noqa: BLE001 - the broker is down
            return None
        return set(held.waiting) | set(held.delivered)

    def database_up(self) -> bool:
        try:
            self.store.ping()
        except Exception:  # noqa: BLE001
            return False
        return True

    def close(self) -> None:
        self.client.close()
        self.app.close()
        self.store.close()


class HealthWatch(Beside):
    """Samples /api/health and /api/health/live every second. Each health sample sits between two looks at what is
    really stranded: whenever both looks found stranded work, health must not have said ok; and between two looks
    at the broker: what health names as queued with no message, the broker must not have held on both."""

    def __init__(self, deploy: Deployment, seen: Seen):
        super().__init__()
        self.deploy, self.seen = deploy, seen
        self.truth = Truth(deploy)

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            self._sample()
            self._reads()

    def _sample(self) -> None:
        before, held_before = self.truth.stranded(), self.truth.broker_holds()
        database_up = self.truth.database_up()
        try:
            response = httpx.get(self.deploy.web.url + "/api/health", timeout=10)
            live = httpx.get(self.deploy.web.url + "/api/health/live", timeout=10).status_code
        except httpx.HTTPError:
            return  # the web process itself is down (its own fault)
        after, held_after = self.truth.stranded(), self.truth.broker_holds()
        if before is not None and after is not None:
            self.seen.health.append((bool(before), response.status_code, bool(after)))
        if database_up and self.truth.database_up():
            self.seen.live.append((True, live))
        if EXCEPTION.search(response.text):
            self.seen.exception_bodies.append(response.text)
        lost = named_stranded(response.json()).get("no_message", [])
        if held_before is not None and held_after is not None:
            self.seen.false_alarms += [sid for sid in lost if sid in held_before and sid in held_after]

    def _reads(self) -> None:
        """What a learner's page and an operator's scraper ask meanwhile: a submission, its event stream (opened,
        its status read, closed), the metrics."""
        url = self.deploy.web.url
        some = next(iter(self.seen.accepted), None)
        try:
            with httpx.Client(base_url=url, timeout=10) as client:
                self.seen.reads.append(("metrics", client.get("/metrics").status_code))
                if some is not None:
                    self.seen.reads.append(("submission", client.get(f"/api/submissions/{some}").status_code))
                    with client.stream("GET", f"/api/submissions/{some}/events") as response:
                        self.seen.reads.append(("events", response.status_code))
        except httpx.HTTPError:
            pass  # the web process itself is down (its own fault), or a stream still open: nothing answered

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.truth.close()


def burst(deploy: Deployment, codes: list[str], seen: Seen) -> list[threading.Thread]:
    lock = threading.Lock()
    threads = [threading.Thread(target=post, args=(deploy.web.url, code, seen, lock), daemon=True) for code in codes]
    for thread in threads:
        thread.start()
        time.sleep(0.3)
    return threads


def report_of(deploy: Deployment, sid: str) -> dict[str, Any] | None:
    """The stored report, read through the web API (as a learner's page does), or None while there is none."""
    try:
        response = httpx.get(f"{deploy.web.url}/api/submissions/{sid}", params={"lang": "en"}, timeout=10)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    body = response.json()
    return body.get("report") if body.get("status") == "done" else None


def stored(deploy: Deployment, ids: list[str]) -> tuple[dict[str, int], dict[str, datetime], dict[str, datetime]]:
    """Per submission: its `done` events, when its verdict was stored, when its last attempt started."""
    store = SqlStore(deploy.pg.url)
    try:
        done = {sid: sum(1 for e in store.events_after(sid, 0) if e.kind == "done") for sid in ids}
        rows = {sid: store.get(sid) for sid in ids}
    finally:
        store.close()
    finished = {sid: row.finished_at for sid, row in rows.items() if row and row.finished_at}
    started = {sid: row.started_at for sid, row in rows.items() if row and row.started_at}
    return done, finished, started


def run_fault(
    deploy: Deployment,
    inject: Callable[[], object],
    heal: Callable[[], object],
    outage_s: float,
    submissions: list[str] | None = None,
    bound_s: float = RECOVERY_S + 30,
) -> Outcome:
    """Half the burst, the fault, the other half during it, the fault's end; then every verdict. Asserts the promises
    that hold under every fault: nothing lost (every verdict within bound_s of the fault's end), nothing wrong, no
    duplicate verdict, no 5xx but 503, health never ok while work was stranded, never naming as stranded what the
    broker holds, never an exception in its body, and /api/health/live 200 whenever the database was up."""
    submissions = submissions or codes(8)
    seen = Seen()
    half = len(submissions) // 2
    messages = TaskMessages(deploy.redis.url).start()
    began = time.time()
    with HealthWatch(deploy, seen):
        first = burst(deploy, submissions[:half], seen)
        inject()
        second = burst(deploy, submissions[half:], seen)
        time.sleep(outage_s)
        heal()
        healed = time.monotonic()
        for thread in first + second:
            thread.join(timeout=300)
        assert len(seen.accepted) == len(submissions), f"{len(seen.accepted)} of {len(submissions)}\n{deploy.logs()}"
        reports: dict[str, dict[str, Any]] = {}
        while len(reports) < len(seen.accepted):
            for sid in seen.accepted:
                if sid not in reports and (report := report_of(deploy, sid)) is not None:
                    reports[sid] = report
            waited = time.monotonic() - healed
            assert waited < bound_s, f"{len(seen.accepted) - len(reports)} lost ({waited:.0f} s)\n{deploy.logs()}"
            time.sleep(0.5)
        recovered = time.monotonic() - healed
        time.sleep(2)  # a last health sample after the end
    messages.stop()
    done, finished, started = stored(deploy, list(seen.accepted))
    last = max(moment.timestamp() for moment in finished.values())
    verdicts = {sid: report["verdict"] for sid, report in reports.items()}
    assert verdicts == seen.accepted, json.dumps({"got": verdicts, "want": seen.accepted})  # 0 wrong
    assert set(done.values()) == {1}, done  # 0 duplicate
    assert [s for s in seen.statuses if s >= 500 and s != 503] == [], seen.statuses  # no 5xx but 503
    assert set(seen.statuses) <= {202, 503}, seen.statuses
    bad_reads = [
        (what, status) for what, status in seen.reads if status not in ((200,) if what == "metrics" else (200, 503))
    ]
    assert not bad_reads, f"reads answered {bad_reads} (metrics must answer without its database or Redis)"
    lied = [sample for sample in seen.health if sample[0] and sample[2] and sample[1] == 200]
    assert not lied, f"health said ok while work was stranded: {lied}"
    assert not seen.false_alarms, f"health named as stranded what the broker held: {seen.false_alarms}"
    assert not seen.exception_bodies, f"health answered exception text: {seen.exception_bodies[:3]}"
    assert all(status == 200 for _, status in seen.live), f"/api/health/live failed with its database up: {seen.live}"
    sent = messages.of(set(seen.accepted))
    return Outcome(seen, submissions, began, last - began, recovered, sent, finished, started)
