"""Operations routes: GET /api/health (the operator's full picture), GET /api/health/live (what a proxy follows) and
Prometheus metrics at /metrics."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from anyio import to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from judge.errors import JudgeError
from judge.extras import require
from judge.queue.outage import OutageLog
from judge.queue.store import UPGRADE_COMMAND, Unmigrated
from judge.queue.tally import BUCKETS

router = APIRouter()
log = logging.getLogger("web.health")
FAULTS = OutageLog(log)  # what health found wrong, with the exception, once per part and outage: the body says less


def _check(part: str, what: Any) -> str:
    """ok, or what is wrong in words an operator acts on; the exception goes to the log, never into the body."""
    try:
        what()
    except Unmigrated:
        return f"not at this version's schema: run `{UPGRADE_COMMAND}`"
    except Exception as exc:  # noqa: BLE001 - health names what failed, it never fails itself
        FAULTS.error(part, f"{type(exc).__name__}: {exc}"[:300])
        return "unreachable"
    return "ok"


def _workers(service: Any) -> str:
    from judge.queue.registry import live_workers  # noqa: PLC0415 - scale-out only

    try:
        queues = {w.queue for w in live_workers(service.dispatcher.redis)}  # skips what is not a heartbeat
    except Exception as exc:  # noqa: BLE001
        FAULTS.error("workers", f"{type(exc).__name__}: {exc}"[:300])
        return "unknown: the broker did not answer"
    return "ok" if "cpu" in queues else "no live worker takes the cpu queue"


def health_of(service: Any) -> dict[str, str]:
    checks = {"database": _check("database", service.store.ping)}
    dispatcher = service.dispatcher
    if service.local:
        checks["workers"] = "ok" if dispatcher.alive() else "the in-process judging threads have stopped"
        return checks
    checks["broker"] = _check("broker", dispatcher.ping)
    checks["workers"] = _workers(service) if checks["broker"] == "ok" else "unknown: the broker is not reachable"
    checks["submissions"] = (
        _stranded(service)
        if checks["database"] == "ok" and checks["broker"] == "ok"
        else ("unknown: the database or the broker is not reachable")
    )
    return checks


def live_of(service: Any) -> dict[str, str]:
    """Whether this process can serve pages and take submissions: its database answers (a submission is stored
    before it is answered; with the broker away it is still taken, and sent later), and in-process, its judging
    threads run. The broker, the workers and stranded work are the operator's (health_of), not the proxy's."""
    checks = {"database": _check("database", service.store.ping)}
    if service.local and not service.dispatcher.alive():
        checks["workers"] = "the in-process judging threads have stopped"
    return checks


def _stranded(service: Any) -> str:
    """ok, or the submissions nothing is working on, as the broker confirms (judge.queue.reaper.stranded)."""
    from judge.queue.reaper import stranded  # noqa: PLC0415 - scale-out only

    try:
        lost = stranded(service.store, service.dispatcher.broker, service.dispatcher.redis)
    except Exception as exc:  # noqa: BLE001 - health names what failed, it never fails itself
        FAULTS.error("submissions", f"{type(exc).__name__}: {exc}"[:300])
        return "unknown: the store or the broker did not answer"
    return "ok" if not lost.ids() else f"stranded: {lost.describe()}"[:1000]


def _answer(checks: dict[str, str]) -> JSONResponse:
    failing = [name for name, state in checks.items() if state != "ok"]
    body = {"status": "ok" if not failing else "failing: " + ", ".join(failing), **checks}
    return JSONResponse(body, status_code=200 if not failing else 503)


def _route(path: str, checks: Callable[[Any], dict[str, str]], description: str, failing: str) -> None:
    async def answer(request: Request) -> JSONResponse:
        return _answer(await to_thread.run_sync(checks, request.app.state.service))

    answer.__name__ = checks.__name__.removesuffix("_of")
    router.add_api_route(
        path, answer, methods=["GET"], description=description, responses={503: {"description": failing}}
    )


_route(
    "/api/health",
    health_of,
    "The operator's full picture: each part (database, broker, workers, and on a queue: submissions, which names "
    "any that nothing is working on, as the broker confirms) is `ok` or says why not: 200 when all are ok, else "
    "503. For a proxy's health check use /api/health/live.",
    "Some part is not ok (named in the body)",
)
_route(
    "/api/health/live",
    live_of,
    "What a proxy's health check follows: 200 while this web process can serve pages and take submissions (its "
    "database answers), else 503. The broker, the workers and stranded work do not count here: a submission taken "
    "while they are away is stored and judged later, and every web process would fail together.",
    "This process cannot take submissions now (named in the body)",
)


class ServiceCollector:
    """Read at each scrape: queue depth from the store, judgements and latency from the tally (any process).
    prometheus-client is the `scale` extra: imported when a scrape comes, never by the learner's page."""

    def __init__(self, service: Any):
        self.service = service

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (  # noqa: PLC0415
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        """Each family that can still be read: the depth needs only the store, the rest only the tally (Redis on a
        queue), so one part being away drops only its own families, and `practice_up` says which."""
        up = GaugeMetricFamily("practice_up", "Whether each part could be read for this scrape", labels=["part"])
        try:
            counts = self.service.store.counts()
        except Exception:  # noqa: BLE001 - the store is away: no depth this scrape
            up.add_metric(["database"], 0)
        else:
            up.add_metric(["database"], 1)
            depth = GaugeMetricFamily(
                "practice_queue_depth", "Submissions by state (queued = waiting)", labels=["state"]
            )
            for state in ("queued", "running"):
                depth.add_metric([state], counts.by_status.get(state, 0))
            yield depth
        try:
            snap = self.service.tally.snapshot()
        except Exception:  # noqa: BLE001 - the tally's Redis is away: no counters this scrape
            up.add_metric(["tally"], 0)
            yield up
            return
        up.add_metric(["tally"], 1)
        yield up
        judged = CounterMetricFamily(
            "practice_judgements", "Judgements stored, by verdict and problem", labels=["problem", "verdict"]
        )
        for (problem, verdict), n in sorted(snap.judgements.items()):
            judged.add_metric([problem, verdict], n)
        yield judged
        cumulative, buckets = 0, []
        for bound, n in zip(BUCKETS, snap.latency_buckets):
            cumulative += n
            buckets.append(("+Inf" if bound == float("inf") else repr(bound), cumulative))
        latency = HistogramMetricFamily(
            "practice_submit_to_report_seconds", "From the 202 answer to the stored report", unit=""
        )
        latency.add_metric([], buckets, sum_value=snap.latency_sum)
        yield latency
        busy = CounterMetricFamily("practice_worker_busy_seconds", "Seconds spent judging", labels=["worker"])
        for worker, seconds in sorted(snap.busy_seconds.items()):
            busy.add_metric([worker], seconds)
        yield busy


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    try:
        require("scale", "/metrics")
    except JudgeError as exc:  # a server installed without the `scale` extra: say which pip line adds it
        return JSONResponse({"detail": exc.message}, status_code=501)
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest  # noqa: PLC0415
    from prometheus_client.core import CollectorRegistry  # noqa: PLC0415

    registry = CollectorRegistry(auto_describe=False)
    registry.register(ServiceCollector(request.app.state.service))  # a Collector by shape
    for collector in getattr(request.app.state, "collectors", []):  # parts' own families (the LTI outbox)
        registry.register(collector)
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
