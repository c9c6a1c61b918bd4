"""How the web app takes the LTI tool in: its router and session middleware, then its state and passback loop."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI

from web.config import WebSettings
from web.lti.db import LtiDb
from web.lti.launches import Refused
from web.lti.passback import STATES, Outbox, counts
from web.lti.routes import refused, router
from web.lti.sessions import LtiSessionMiddleware
from web.lti.tool import LtiTool
from web.service import WebService


def install(app: FastAPI) -> None:
    """At build time: the /lti routes, and the session middleware (added first, so it runs inside WebMiddleware
    and its learner wins over the anonymous cookie's)."""
    app.include_router(router)
    app.add_exception_handler(Refused, refused)  # type: ignore[arg-type]  # registered for Refused only
    app.add_middleware(LtiSessionMiddleware)


def start(app: FastAPI, service: WebService, settings: WebSettings) -> Callable[[], None]:
    """In the lifespan: the tool over the service's database, and its passback loop. Returns what stops it."""
    engine = getattr(service.store, "engine", None)
    db = LtiDb(engine) if engine is not None else LtiDb.open(settings.database())
    tool = LtiTool(db, service.judge, settings.cookie_key())
    outbox = Outbox(tool).start()
    app.state.lti = tool
    app.state.collectors = [*getattr(app.state, "collectors", []), OutboxCollector(tool)]

    def stop() -> None:
        outbox.stop()
        if engine is None:
            db.close()

    return stop


class OutboxCollector:
    """/metrics: the passback outbox by state (practice_lti_passbacks{state="pending"} and so on)."""

    def __init__(self, tool: LtiTool):
        self.tool = tool

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily  # noqa: PLC0415 - the scale extra, read at a scrape

        family = GaugeMetricFamily("practice_lti_passbacks", "LTI grade passbacks by state", labels=["state"])
        try:
            found = counts(self.tool)
        except Exception:  # noqa: BLE001 - the database away: no family this scrape (practice_up says so)
            return
        for state in STATES:
            family.add_metric([state], found.get(state, 0))
        yield family
