"""The OIDC login and the launch: validate (PyLTI1p3, tightened in adapter.py), record the course, open a session."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.roles import TeacherRole
from sqlalchemy import select

from judge.errors import UnknownProblem
from judge.queue.store import now
from judge.report.catalog import say
from judge.report.i18n import Text
from web.lti.adapter import (
    CookieJar,
    DbStorage,
    FastAPIMessageLaunch,
    FastAPIOIDCLogin,
    FastAPIRequest,
    OnceSessionService,
    http_session,
)
from web.lti.tables import ContextRow, LinkRow, UserRow
from web.lti.tool import LtiSession, LtiTool

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
POLICIES = ("best", "latest")


class Refused(Exception):
    """A login or launch refused: status (4xx) and what was wrong, in both languages. Nothing was stored."""

    def __init__(self, status: int, text: Text, detail: str = ""):
        super().__init__(text.en)
        self.status, self.text, self.detail = status, text, detail


def _parts(tool: LtiTool, request: FastAPIRequest) -> tuple[DbStorage, OnceSessionService, CookieJar]:
    storage = DbStorage(tool.db)
    storage.set_request(request)
    return storage, OnceSessionService(request, storage), CookieJar(request)


def login(tool: LtiTool, request: FastAPIRequest, launch_url: str) -> Any:
    """Third-party-initiated login: redirect to the platform's auth URL with a state (bound to a cookie) and a
    nonce, both kept here to be used once."""
    storage, sessions, cookies = _parts(tool, request)
    oidc = FastAPIOIDCLogin(request, tool.conf, sessions, cookies, storage)
    try:
        return oidc.redirect(launch_url)
    except (OIDCException, LtiException) as exc:
        raise Refused(400, say("lti.refused.login", why=str(exc)), str(exc)) from exc


def _custom(body: Mapping[str, Any]) -> dict[str, str]:
    custom = body.get(CLAIM + "custom") or {}
    return {str(k): str(v) for k, v in custom.items()} if isinstance(custom, dict) else {}


def _exercise_check(tool: LtiTool) -> Any:
    """The tool's own claim rules, run inside validation (before the nonce is spent and anything is stored)."""

    def check(body: Mapping[str, Any]) -> None:
        if body.get(CLAIM + "message_type") != "LtiResourceLinkRequest":
            return
        custom = _custom(body)
        exercise = custom.get("exercise", "")
        if not exercise or not _known(tool, exercise):
            known = ", ".join(p.meta.id for p in tool.judge.problems())
            raise Refused(400, say("lti.refused.exercise", exercise=exercise[:40] or "-", known=known))
        policy = custom.get("score_policy", "best")
        if policy not in POLICIES:
            raise Refused(400, say("lti.refused.policy", policy=policy[:40]))

    return check


def _known(tool: LtiTool, exercise: str) -> bool:
    try:
        tool.judge.problem(exercise)
    except UnknownProblem:
        return False
    return True


def launch(tool: LtiTool, request: FastAPIRequest) -> tuple[LtiSession, str, dict[str, Any]]:
    """Validate the id_token and record what it says: (session, its cookie token, the launch's claims)."""
    storage, sessions, cookies = _parts(tool, request)
    message = FastAPIMessageLaunch(request, tool.conf, sessions, cookies, storage, requests_session=http_session())
    message.extra_check = _exercise_check(tool)
    try:
        message.validate()
    except Refused:
        raise
    except (LtiException, ValueError, KeyError, TypeError, AssertionError) as exc:
        raise Refused(401, say("lti.refused.token", why=str(exc)[:300]), str(exc)) from exc
    body: dict[str, Any] = dict(message.get_launch_data())
    session = record(tool, body, message.get_launch_id())
    return session, tool.open_session(session), body


def is_instructor(body: Mapping[str, Any]) -> bool:
    roles = [str(r) for r in body.get(CLAIM + "roles") or []]
    return bool(TeacherRole(body).check()) or any(r.endswith(("#Administrator", "/Administrator")) for r in roles)


def origins(body: Mapping[str, Any], extra: str) -> list[str]:
    """Who may frame the tool for this session: the origins of the URLs the launch names (the LMS's own pages
    and services), and the configured ones."""
    urls = [
        body.get("iss"),
        (body.get(CLAIM + "launch_presentation") or {}).get("return_url"),
        (body.get(CLAIM + "tool_platform") or {}).get("url"),
        (body.get(AGS) or {}).get("lineitems"),
        (body.get(AGS) or {}).get("lineitem"),
        (body.get(NRPS) or {}).get("context_memberships_url"),
        (body.get(DL_SETTINGS) or {}).get("deep_link_return_url"),
    ]
    found = [origin for origin in map(origin_of, urls) if origin]
    return list(dict.fromkeys([*found, *extra.split()]))


def origin_of(url: object) -> str | None:
    """scheme://host[:port] of an http(s) URL, else None (nothing else may enter a content policy)."""
    parts = urlsplit(str(url or ""))
    ok = parts.scheme in ("http", "https") and parts.netloc and not set(parts.netloc) & set(" ;,'\"")
    return f"{parts.scheme}://{parts.netloc}" if ok else None


def record(tool: LtiTool, body: Mapping[str, Any], launch_id: str) -> LtiSession:
    """Upsert the course, the person and the link a validated launch describes; the session that follows."""
    issuer, sub = str(body["iss"]), str(body.get("sub", ""))
    aud = body.get("aud")
    client_id = str(aud[0] if isinstance(aud, list) else aud)
    deployment = str(body[CLAIM + "deployment_id"])
    context = body.get(CLAIM + "context") or {}
    context_id = str(context.get("id") or f"link:{(body.get(CLAIM + 'resource_link') or {}).get('id', '')}")
    learner = tool.learner_id(issuer, deployment, context_id, sub)
    stamp = now()
    with tool.db.session.begin() as s:
        ctx = s.scalar(
            select(ContextRow).where(
                ContextRow.issuer == issuer, ContextRow.deployment_id == deployment, ContextRow.context_id == context_id
            )
        )
        if ctx is None:
            ctx = ContextRow(issuer=issuer, client_id=client_id, deployment_id=deployment, context_id=context_id)
            s.add(ctx)
        ctx.title = str(context.get("title") or context.get("label") or context_id)[:255]
        ctx.memberships_url = (body.get(NRPS) or {}).get("context_memberships_url") or ctx.memberships_url
        ctx.updated_at = stamp
        user = s.get(UserRow, learner) or UserRow(learner=learner)
        user.issuer, user.client_id, user.deployment_id, user.context_id, user.sub = (
            issuer,
            client_id,
            deployment,
            context_id,
            sub,
        )
        user.name = str(body.get("name") or body.get("given_name") or sub)[:255]
        user.email = str(body.get("email") or "")[:255]
        user.roles, user.updated_at = json.dumps(list(body.get(CLAIM + "roles") or [])), stamp
        s.merge(user)
        s.flush()
        link_id, exercise = _link(s, ctx.id, body)
        context_pk = ctx.id
    return LtiSession(
        learner=learner,
        issuer=issuer,
        client_id=client_id,
        deployment_id=deployment,
        context_pk=context_pk,
        sub=sub,
        name=str(body.get("name") or body.get("given_name") or ""),
        instructor=is_instructor(body),
        launch_id=launch_id,
        link_id=link_id,
        exercise=exercise,
        origins=origins(body, tool.settings.frame_ancestors),
    )


def _link(s: Any, context_pk: int, body: Mapping[str, Any]) -> tuple[int | None, str | None]:
    if body.get(CLAIM + "message_type") != "LtiResourceLinkRequest":
        return None, None
    resource = body.get(CLAIM + "resource_link") or {}
    custom, ags = _custom(body), body.get(AGS) or {}
    link = s.scalar(
        select(LinkRow).where(LinkRow.context_pk == context_pk, LinkRow.resource_link_id == str(resource["id"]))
    )
    if link is None:
        link = LinkRow(context_pk=context_pk, resource_link_id=str(resource["id"]))
        s.add(link)
    link.title = str(resource.get("title") or "")[:255]
    link.exercise = custom["exercise"]
    link.score_policy = custom.get("score_policy", "best")
    link.lineitem = ags.get("lineitem")
    link.ags_scopes = json.dumps(list(ags.get("scope") or []))
    link.updated_at = now()
    s.flush()
    return link.id, link.exercise
