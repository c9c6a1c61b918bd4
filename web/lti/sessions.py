"""An LTI session on each request: the launch's learner replaces the anonymous one, and the LMS may frame the page."""

from __future__ import annotations

from functools import partial
from typing import Any

from anyio import to_thread
from sqlalchemy import select
from starlette.types import ASGIApp, Receive, Scope, Send

from judge.queue.store import Submission
from web.lti.passback import enqueue
from web.lti.tables import LinkRow
from web.lti.tool import SESSION_COOKIE, LtiSession, LtiTool
from web.middleware import cookies


def link_for(tool: LtiTool, session: LtiSession, problem_id: str) -> int | None:
    """The course's link for this exercise: the one launched, else any link of the course that opens it."""
    if session.link_id is not None and session.exercise == problem_id:
        return session.link_id
    with tool.db.session() as s:
        return s.scalar(
            select(LinkRow.id)
            .where(LinkRow.context_pk == session.context_pk, LinkRow.exercise == problem_id)
            .order_by(LinkRow.updated_at.desc())
            .limit(1)
        )


def after_submit(tool: LtiTool, session: LtiSession, submission: Submission) -> None:
    """A Submit from an LTI session gets its outbox row (a Run checks the public tests only: no grade)."""
    if submission.mode != "submit":
        return
    link_id = link_for(tool, session, submission.problem_id)
    if link_id is not None:
        enqueue(tool, submission.id, link_id, session.learner)


class LtiSessionMiddleware:
    """Runs inside WebMiddleware: with a valid `practice_lti` cookie the request is that LTI learner's (their
    submissions, their history), counted per learner and not per address, and may be framed by their LMS."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._attach(scope)
        await self.app(scope, receive, send)

    async def _attach(self, scope: Scope) -> None:
        token = cookies(scope).get(SESSION_COOKIE)
        tool: Any = getattr(getattr(scope.get("app"), "state", None), "lti", None)
        if not token or tool is None:
            return
        session = await to_thread.run_sync(tool.session, token)
        if session is None:
            return
        state = scope.setdefault("state", {})
        state.update(
            learner=session.learner,
            address=None,
            lti=session,
            frame_ancestors=" ".join(session.origins),
            on_submitted=partial(after_submit, tool, session),
        )
