"""GET /api/submissions/{id}/events: what happened so far, then live, as server-sent events (sse-starlette)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from anyio import to_thread
from fastapi import APIRouter, HTTPException, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from judge.queue.outage import REDIS_ERRORS, store_unreachable
from judge.report.i18n import Lang
from web.api import LangQuery, reader_lang, service
from web.projection import event_data
from web.schemas import ErrorOut

router = APIRouter(prefix="/api")
RECONNECT_MS = 5000  # what a stream cut by an outage tells the client to wait before it reconnects
POLL_S = 2.0  # the store is the truth; a wake-up only saves waiting for the next poll


FINAL = ("done", "cancelled")
MAX_EVENT_ID_DIGITS = 18  # below 2**63: what any store's integer key holds


def last_event_id(request: Request) -> int:
    """The Last-Event-ID header as a number, or 0 (replay from the start) for anything but ASCII digits: `²` is a
    digit to str.isdigit() and not to int(), and 10**30 overflows a database's integer."""
    value = request.headers.get("last-event-id", "")
    digits = value.isascii() and value.isdigit() and len(value) <= MAX_EVENT_ID_DIGITS
    return int(value) if digits else 0


@router.get(
    "/submissions/{submission_id}/events",
    responses={404: {"model": ErrorOut}},
    response_class=EventSourceResponse,
    description="Server-sent events: `queued` (position), `restarted` (after `queued`, when a judgement that had "
    "begun starts again from the beginning, its worker having died: drop the cases seen so far), `running`, "
    "`collected` (total), `case_started` (the "
    "public case now running, by name; once, with no name, when hidden cases begin), `case` (one per "
    "finished case), `done` (the final submission with its report) or `cancelled`, then the stream closes. "
    "Reconnect with Last-Event-ID to get only what came after.",
)
async def events(submission_id: str, request: Request, lang: Lang | None = LangQuery) -> EventSourceResponse:
    svc = service(request)
    if await to_thread.run_sync(svc.store.get, submission_id) is None:
        raise HTTPException(404, "no such submission")
    reader = reader_lang(request, lang)
    after = last_event_id(request)

    async def stream() -> AsyncIterator[ServerSentEvent]:
        nonlocal after
        subscription = svc.broadcast.subscribe(submission_id)
        try:
            if after:  # an id past this submission's last stored event is ignored as if absent: replay from the start
                stored = await to_thread.run_sync(svc.store.events_after, submission_id, after - 1)
                if not stored or stored[0].id != after:
                    after = 0
                elif len(stored) == 1 and stored[0].kind in FINAL:
                    after -= 1  # it was the last event: sent again, so a finished stream always ends with it
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
                    if event.kind in FINAL:
                        return
                await subscription.wait(POLL_S)
        except Exception as exc:
            if not (store_unreachable(exc) or isinstance(exc, REDIS_ERRORS)):
                raise
            # The store went away mid-stream (the response has started: no 503 now). Close with a reconnection
            # delay: the client comes back with Last-Event-ID and gets a 503 with Retry-After until the store is
            # back, then the rest of the stream; nothing stored is lost, and the report is stored when judged.
            yield ServerSentEvent(comment="the judge's store is unreachable; reconnect", retry=RECONNECT_MS)
        finally:
            subscription.close()

    return EventSourceResponse(stream(), ping=15, send_timeout=30)
