"""The FastAPI application: routes, error mapping, and the service's life (start, resume, close)."""

from __future__ import annotations

import logging
import threading
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from judge.errors import JudgeError
from web import api, pages, stream
from web.config import WebSettings
from web.middleware import WebMiddleware
from web.service import WebService

log = logging.getLogger("web")
RETRY_AFTER_S = 5


def error_text(exc: JudgeError, lang: str = "en") -> str:
    text = getattr(exc, "text", None)  # bilingual where the judge provides it
    return text.get(lang) if text else exc.message


async def judge_error(request: Request, exc: JudgeError) -> JSONResponse:
    status = exc.http_status if 400 <= exc.http_status < 600 else 400
    if status >= 500 and status != 503:
        log.error("problem fault: %s", exc.message)
    headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else None
    lang = api.reader_lang(request, request.query_params.get("lang"))
    return JSONResponse({"detail": error_text(exc, lang)}, status_code=status, headers=headers)


def _warm_quietly(core) -> None:
    try:
        core.warm()
    except Exception:
        log.exception("warming the judge failed")


def create_app(settings: WebSettings | None = None, judge=None) -> FastAPI:
    """judge: any object with grade/problem/problems/settings (tests pass a fake); default a warm Judge."""
    settings = settings or WebSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        from judge import Judge  # noqa: PLC0415

        own = judge is None
        core = judge or Judge()
        service = WebService(settings, core)
        app.state.service = service
        if own:  # start the warm parents in the background: the first learner should not wait for them
            threading.Thread(target=_warm_quietly, args=(core,), name="judge-warm", daemon=True).start()
        resumed = service.resume()
        if resumed:
            log.warning("re-queued %d submissions left unfinished by the last run", resumed)
        try:
            yield
        finally:
            service.close()
            if own:
                core.close()

    app = FastAPI(
        title="practice-judge", description="Judge handbook exercises in the browser.", version="1", lifespan=lifespan
    )
    app.add_exception_handler(JudgeError, judge_error)
    app.include_router(api.router)
    app.include_router(stream.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    app.add_middleware(WebMiddleware, max_body=settings.max_body_bytes)
    return app
