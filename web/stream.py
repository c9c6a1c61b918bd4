"""GET /api/submissions/{id}/events: what happened so far, then live, as server-sent events (sse-starlette)."""

from __future__ import annotations

import json
from typing import Literal

from anyio import to_thread
from fastapi import APIRouter, HTTPException, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from web.api import LangQuery, reader_lang, service
from web.projection import event_data
from web.schemas import ErrorOut

router = APIRouter(prefix="/api")
POLL_S = 2.0  # the store is the truth; a wake-up only saves waiting for the next poll


def last_event_id(request: Request) -> int:
    value = request.headers.get("last-event-id", "")
    return int(value) if value.isdigit() else 0


@router.get(
    "/submissions/{submission_id}/events",
    responses={404: {"model": ErrorOut}},
    response_class=EventSourceResponse,
    description="Server-sent events: `queued` (position), `running`, `collected` (total), `case_started` (the "
    "public case now running, by name; once, with no name, when hidden cases begin), `case` (one per "
    "finished case), `done` (the final submission with its report) or `cancelled`, then the stream closes. "
    "Reconnect with Last-Event-ID to get only what came after.",
)
async def events(submission_id: str, request: Request, lang: Literal["zh", "en"] | None = LangQuery):
    svc = service(request)
    if await to_thread.run_sync(svc.store.get, submission_id) is None:
        raise HTTPException(404, "no such submission")
    reader = reader_lang(request, lang)
    after = last_event_id(request)

    async def stream():
        nonlocal after
        subscription = svc.broadcast.subscribe(submission_id)
        try:
            while True:
                stored = await to_thread.run_sync(svc.store.events_after, submission_id, after)
                for event in stored:
                    sub = await to_thread.run_sync(svc.store.get, submission_id) if event.kind == "done" else None
                    yield ServerSentEvent(
                        id=str(event.id),
                        event=event.kind,
                        data=json.dumps(event_data(event, reader, sub), ensure_ascii=False),
                    )
                    after = event.id
                    if event.kind in ("done", "cancelled"):
                        return
                await subscription.wait(POLL_S)
        finally:
            subscription.close()

    return EventSourceResponse(stream(), ping=15, send_timeout=30)
