"""The FastAPI application: routes, error mapping, and the service's life (start, resume, close)."""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from judge.errors import JudgeError
from judge.extras import require
from judge.queue.outage import REDIS_ERRORS, OutageLog, store_unreachable
from judge.queue.store import SqlStore, Store
from judge.report.catalog import say
from judge.report.i18n import Lang
from judge.report.textsafe import valid
from web import api, learner, ops, pages, stream
from web.broadcast import Broadcast
from web.config import WebSettings
from web.dispatch import Dispatcher
from web.judgelike import JudgeLike
from web.lti import wiring as lti_wiring
from web.middleware import WebMiddleware
from web.service import WebService

if TYPE_CHECKING:
    from judge import Judge

log = logging.getLogger("web")
RETRY_AFTER_S = 5
OUTAGES = OutageLog(log)


def error_text(exc: JudgeError, lang: Lang = "en") -> str:
    text = getattr(exc, "text", None)  # bilingual where the judge provides it
    return text.get(lang) if text else exc.message


async def judge_error(request: Request, exc: JudgeError) -> JSONResponse:
    status = exc.http_status if 400 <= exc.http_status < 600 else 400
    if status >= 500 and status != 503:
        log.error("problem fault: %s", exc.message)
    headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else None
    lang = api.reader_lang(request, request.query_params.get("lang"))
    return JSONResponse({"detail": error_text(exc, lang)}, status_code=status, headers=headers)


def _safe(value: object) -> str | int:
    """A location part or message as text that encodes: an int as is, anything else valid Unicode, capped."""
    return value if type(value) is int else valid(str(value))[:200]


def _outage(exc: BaseException) -> str | None:
    """What is away when a request meets this error (the database, the broker, the disk), or None: an outage is
    the service's to wait out, so it answers 503 with Retry-After, never 500."""
    if store_unreachable(exc):
        return "its database"
    if isinstance(exc, REDIS_ERRORS):  # away, or refusing writes (MISCONF on a full disk)
        return "its queue"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        return "its disk"
    return None


async def unavailable(request: Request, exc: Exception) -> JSONResponse:
    """503 with Retry-After while the store, the broker or the disk is away (one log line per outage)."""
    what = _outage(exc)
    if what is None:
        raise exc
    OUTAGES.error(what, f"{request.method} {request.url.path}: {type(exc).__name__}")
    lang = api.reader_lang(request, request.query_params.get("lang"))
    text = say("web.unavailable", what=say(f"web.unavailable.{what.split()[-1]}"))
    return JSONResponse({"detail": text.get(lang)}, status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})


async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 with where and why, never the input itself: it may hold what JSON cannot carry (a lone surrogate,
    NaN) or be large, and the client sent it anyway."""
    errors = [
        {
            "loc": [_safe(part) for part in error.get("loc", ())],
            "msg": _safe(error.get("msg", "")),
            "type": _safe(error.get("type", "")),
        }
        for error in exc.errors()[:20]
    ]
    return JSONResponse({"detail": errors}, status_code=422)


def _service(
    settings: WebSettings, core: JudgeLike, store: Store | None, dispatcher: Dispatcher | None
) -> tuple[WebService, list[Any]]:
    """The service over the given or configured store and dispatcher; extras: threads to stop at shutdown."""
    if not settings.queue_url or dispatcher is not None:
        return WebService(settings, core, store, dispatcher), []
    require("scale", "PRACTICE_QUEUE_URL")  # a queue needs the `scale` extra: say which pip line, not a traceback
    import redis  # noqa: PLC0415 - only with a queue

    from judge.queue.dispatcher import CeleryDispatcher  # noqa: PLC0415
    from judge.queue.relay import event_listener  # noqa: PLC0415
    from judge.queue.tally import RedisTally  # noqa: PLC0415

    store = store or SqlStore(settings.database())
    queue = CeleryDispatcher(settings, store, core)
    broadcast = Broadcast()
    client = redis.Redis.from_url(settings.queue_url, socket_timeout=10)
    relay = event_listener(redis.Redis.from_url(settings.queue_url), broadcast.publish).start()
    service = WebService(settings, core, store, queue, tally=RedisTally(client), broadcast=broadcast)
    return service, [relay]


def _warm_quietly(core: Judge) -> None:
    try:
        core.warm()
    except Exception:
        log.exception("warming the judge failed")


def create_app(
    settings: WebSettings | None = None,
    judge: JudgeLike | None = None,
    store: Store | None = None,
    dispatcher: Dispatcher | None = None,
) -> FastAPI:
    """judge: a JudgeLike (tests pass a fake); default a warm Judge.

    store, dispatcher: handed in (tests, embedding) or built from the settings: SQLite and the in-process pool
    by default; PRACTICE_DATABASE_URL and PRACTICE_QUEUE_URL choose PostgreSQL and Celery workers."""
    settings = settings or WebSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from judge import Judge  # noqa: PLC0415

        own: Judge | None = None  # a judge of our own: warmed and closed here
        core: JudgeLike
        if judge is None:
            own = core = Judge()
        else:
            core = judge
        service, extras = _service(settings, core, store, dispatcher)
        app.state.service = service
        if own is not None and service.local:  # warm parents in the background: the first learner should not wait
            threading.Thread(target=_warm_quietly, args=(own,), name="judge-warm", daemon=True).start()
        stop_lti = lti_wiring.start(app, service, settings)
        resumed = service.resume()
        if resumed:
            log.warning("re-queued %d submissions left unfinished by the last run", resumed)
        try:
            yield
        finally:
            stop_lti()
            for extra in extras:
                extra.stop()
            service.close()
            if own is not None:
                own.close()

    app = FastAPI(
        title="practice-judge",
        description="Judge handbook exercises in the browser.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # web/pages.py serves /docs from our own copy of Swagger UI (offline)
        redoc_url=None,
    )
    # Starlette types a handler as taking any Exception; each of these is registered for its own class only.
    app.add_exception_handler(JudgeError, judge_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    outages: tuple[type[Exception], ...] = (OperationalError, InterfaceError, DBAPIError, *REDIS_ERRORS, OSError)
    for outage in outages:
        app.add_exception_handler(outage, unavailable)
    app.include_router(api.router)
    app.include_router(stream.router)
    app.include_router(pages.router)
    app.include_router(learner.router)  # Try, the progress shared with the terminal, the learner's guide
    app.include_router(ops.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    lti_wiring.install(app)  # the LTI 1.3 tool (web/lti): /lti routes, LTI sessions
    app.add_middleware(WebMiddleware, max_body=settings.max_body_bytes, cookie_key=settings.cookie_key())
    return app
