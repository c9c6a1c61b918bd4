"""A burst of submissions through the public API while a fault is injected, and what the operator and the learner
saw meanwhile: every answer's status, /api/health beside the truth of what was stranded, and each verdict."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis

from judge.queue.reaper import stranded
from judge.queue.store import SqlStore
from tests.conftest import FIXTURE_PROBLEMS
from tests.faults.deployment import Deployment

ACCEPTED = (FIXTURE_PROBLEMS / "900-echo" / "solutions" / "reference.py").read_text()
SLOW = "import time\n\ntime.sleep(3)  # holds its worker long enough to be hurt mid-judgement\n\n\n" + ACCEPTED
WRONG_FILE = FIXTURE_PROBLEMS / "900-echo" / "solutions" / "wrong" / "subtracts.py"
WRONG = WRONG_FILE.read_text()
EXPECT = {ACCEPTED: "accepted", SLOW: "accepted", WRONG: WRONG.splitlines()[0].removeprefix("# expect: ")}
RECOVERY_S = 60.0  # the promise: every verdict within this long of the fault's end


@dataclass
class Seen:
    statuses: list[int] = field(default_factory=list)  # every HTTP answer the learners' clients got
    unreachable: int = 0  # connections refused or cut (the web process itself down)
    health: list[tuple[bool, int, bool]] = field(default_factory=list)  # (stranded before, health status, after)
    reads: list[tuple[str, int]] = field(default_factory=list)  # (what, status) of the learners' and operators' GETs
    accepted: dict[str, str] = field(default_factory=dict)  # id -> expected verdict


def post(url: str, code: str, seen: Seen, lock: threading.Lock, deadline_s: float = 150) -> None:
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


class HealthWatch:
    """Samples /api/health every second, each between two looks at what is really stranded (the store and Redis,
    asked directly): whenever both looks found stranded work, health must not have said ok."""

    def __init__(self, deploy: Deployment, seen: Seen):
        self.deploy, self.seen = deploy, seen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _truth(self) -> bool | None:
        try:
            store = SqlStore(self.deploy.pg.url)
            try:
                client = redis.Redis.from_url(self.deploy.redis.url, socket_timeout=2)
                return bool(stranded(store, client).ids())
            finally:
                store.close()
        except Exception:  # noqa: BLE001 - the store or the broker is down: nobody can tell
            return None

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            before = self._truth()
            try:
                status = httpx.get(self.deploy.web.url + "/api/health", timeout=10).status_code
            except httpx.HTTPError:
                continue
            after = self._truth()
            if before is not None and after is not None:
                self.seen.health.append((before, status, after))
            self._reads()

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

    def __enter__(self) -> HealthWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


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


def done_events(deploy: Deployment, sid: str) -> int:
    store = SqlStore(deploy.pg.url)
    try:
        return sum(1 for event in store.events_after(sid, 0) if event.kind == "done")
    finally:
        store.close()


def run_fault(
    deploy: Deployment,
    inject: Callable[[], object],
    heal: Callable[[], object],
    outage_s: float,
    codes: list[str] | None = None,
) -> tuple[Seen, float]:
    """Half the burst, the fault, the other half during it, the fault's end; then every verdict. Returns what was
    seen and the seconds from the fault's end to the last verdict."""
    codes = codes or [ACCEPTED, WRONG, SLOW, ACCEPTED, WRONG, ACCEPTED, SLOW, WRONG]
    seen = Seen()
    half = len(codes) // 2
    with HealthWatch(deploy, seen):
        first = burst(deploy, codes[:half], seen)
        inject()
        second = burst(deploy, codes[half:], seen)
        time.sleep(outage_s)
        heal()
        healed = time.monotonic()
        for thread in first + second:
            thread.join(timeout=200)
        assert len(seen.accepted) == len(codes), f"taken {len(seen.accepted)} of {len(codes)}\n{deploy.logs()}"
        reports: dict[str, dict[str, Any]] = {}
        while len(reports) < len(seen.accepted):
            for sid in seen.accepted:
                if sid not in reports and (report := report_of(deploy, sid)) is not None:
                    reports[sid] = report
            waited = time.monotonic() - healed
            assert waited < RECOVERY_S + 30, (
                f"{len(seen.accepted) - len(reports)} lost (no verdict {waited:.0f} s after the fault)\n{deploy.logs()}"
            )
            time.sleep(0.5)
        recovered = time.monotonic() - healed
        time.sleep(2)  # a last health sample after the end
    verdicts = {sid: report["verdict"] for sid, report in reports.items()}
    assert verdicts == seen.accepted, json.dumps({"got": verdicts, "want": seen.accepted})  # 0 wrong
    assert all(done_events(deploy, sid) == 1 for sid in seen.accepted)  # 0 duplicate
    assert [s for s in seen.statuses if s >= 500 and s != 503] == [], seen.statuses  # no 5xx but 503
    assert set(seen.statuses) <= {202, 503}, seen.statuses
    bad_reads = [
        (what, status) for what, status in seen.reads if status not in ((200,) if what == "metrics" else (200, 503))
    ]
    assert not bad_reads, f"reads answered {bad_reads} (metrics must answer without its database or Redis)"
    lied = [sample for sample in seen.health if sample[0] and sample[2] and sample[1] == 200]
    assert not lied, f"health said ok while work was stranded: {lied}"
    return seen, recovered
