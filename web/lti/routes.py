"""The tool's HTTP face: /lti/jwks, /lti/login, /lti/launch, the picker, the course view, configs, /lti/register."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any, cast

from anyio import to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from judge.batch.exports import grades_csv, grades_xlsx
from judge.extras import require
from judge.report.catalog import say, words
from judge.report.i18n import Lang, pick_lang
from judge.report.models import Report
from web.lti import course, deeplink, dynreg, launches
from web.lti.adapter import FastAPIRequest, set_cookie
from web.lti.launches import Refused
from web.lti.passback import counts
from web.lti.tool import SESSION_COOKIE, SESSION_LIFETIME_S, LtiSession, LtiTool
from web.middleware import cookies as request_cookies

HERE = Path(__file__).resolve().parent
TEMPLATES = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
STATIC = {"lti.css": "text/css", "autosubmit.js": "text/javascript", "close.js": "text/javascript"}
router = APIRouter(prefix="/lti", include_in_schema=False)


def tool_of(request: Request) -> LtiTool:
    return cast(LtiTool, request.app.state.lti)


def lang_of(request: Request) -> Lang:
    return pick_lang(request.scope["state"].get("lang_cookie"), request.headers.get("accept-language"))


def base_url(request: Request) -> str:
    configured = tool_of(request).settings.public_url
    return (configured or str(request.base_url)).rstrip("/")


def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    lang = lang_of(request)
    texts = words("lti", lang)
    html = TEMPLATES.get_template(template).render(lang=lang, t=lambda key: texts.get(key, key), **values)
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})


async def refused(request: Request, exc: Refused) -> HTMLResponse:
    """Every refusal of the tool's routes: a 4xx page saying what was wrong (wiring.install registers it)."""
    lang = lang_of(request)
    heading = say("lti.refused").get(lang)
    return page(request, "error.html", exc.status, heading=heading, message=exc.text.get(lang), detail=exc.detail)


async def lti_request(request: Request) -> FastAPIRequest:
    params = dict(request.query_params)
    if request.method == "POST":
        form = await request.form()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    secure = request.url.scheme == "https" or base_url(request).startswith("https://")
    return FastAPIRequest(params, request_cookies(request.scope), secure)


def csrf_of(request: Request) -> str:
    """A form's token: the session cookie's HMAC (a cross-site form cannot read it; SameSite=None would send
    the cookie along)."""
    token = request_cookies(request.scope).get(SESSION_COOKIE, "")
    return hmac.new(tool_of(request).key, b"csrf\0" + token.encode(), hashlib.sha256).hexdigest()


def session_of(request: Request, instructor: bool = False) -> LtiSession:
    session = request.scope["state"].get("lti")
    if not isinstance(session, LtiSession):
        raise Refused(401, say("lti.refused.session"))
    if instructor and not session.instructor:
        raise Refused(403, say("lti.refused.instructor"))
    return session


async def checked_form(request: Request) -> dict[str, Any]:
    form = await request.form()
    if not hmac.compare_digest(str(form.get("csrf", "")), csrf_of(request)):
        raise Refused(403, say("lti.refused.session"), "the form's token does not match this session")
    return {"form": form}


# -- keys and registration documents --


@router.get("/jwks")
async def jwks(request: Request) -> JSONResponse:
    keys = await to_thread.run_sync(tool_of(request).registry.jwks)
    return JSONResponse(keys, headers={"Cache-Control": "max-age=300"})


@router.get("/config/canvas.json")
def canvas_config(request: Request) -> JSONResponse:
    return JSONResponse(dynreg.canvas_json(base_url(request)))


@router.get("/config/moodle")
def moodle_config(request: Request) -> JSONResponse:
    return JSONResponse(dynreg.moodle_urls(base_url(request)))


@router.get("/register")
async def register(request: Request) -> HTMLResponse:
    """LTI Dynamic Registration: the platform's admin pastes this URL; platform and tool register each other."""
    issuer = await to_thread.run_sync(
        dynreg.register,
        tool_of(request),
        base_url(request),
        request.query_params.get("openid_configuration", ""),
        request.query_params.get("registration_token"),
    )
    return page(request, "registered.html", message=say("lti.registered", issuer=issuer).get(lang_of(request)))


@router.get("/static/{name}")
def static(name: str) -> Response:
    if name not in STATIC:
        return Response(status_code=404)
    return Response((HERE / "static" / name).read_bytes(), media_type=STATIC[name])


# -- login and launch --


@router.api_route("/login", methods=["GET", "POST"])
async def login(request: Request) -> Response:
    lti = await lti_request(request)
    answer = await to_thread.run_sync(launches.login, tool_of(request), lti, base_url(request) + "/lti/launch")
    return cast(Response, answer)


@router.post("/launch")
async def launch(request: Request) -> Response:
    lti = await lti_request(request)
    session, token, body = await to_thread.run_sync(launches.launch, tool_of(request), lti)
    request.scope["state"]["frame_ancestors"] = " ".join(session.origins)
    if body.get(launches.CLAIM + "message_type") == "LtiDeepLinkingRequest":
        target = "/lti/picker"
    elif session.instructor:
        target = "/lti/course"
    else:
        target = f"/problems/{session.exercise}"
    response = RedirectResponse(target, status_code=303)
    set_cookie(response, SESSION_COOKIE, token, SESSION_LIFETIME_S, lti.is_secure())
    return response


# -- deep linking --


@router.get("/picker")
def picker(request: Request) -> HTMLResponse:
    session_of(request, instructor=True)
    rows = deeplink.picker_rows(tool_of(request), lang_of(request))
    return page(request, "picker.html", rows=rows, csrf=csrf_of(request))


@router.post("/picker")
async def picked(request: Request) -> HTMLResponse:
    tool = tool_of(request)
    session = session_of(request, instructor=True)
    form = (await checked_form(request))["form"]
    choices = deeplink.choices(tool, form)
    lti = await lti_request(request)
    return_url, token = await to_thread.run_sync(
        deeplink.response_form, tool, session, lti, choices, base_url(request) + "/lti/launch"
    )
    request.scope["state"]["form_action"] = launches.origin_of(return_url)  # our CSP lets the form post back
    return page(request, "return.html", return_url=return_url, jwt=token)


# -- the course view --


@router.get("/course")
async def course_page(request: Request) -> HTMLResponse:
    session = session_of(request, instructor=True)
    tool, lang = tool_of(request), lang_of(request)
    view = await to_thread.run_sync(course.course_view, tool, session.context_pk, lang)
    regraded = request.query_params.get("regraded", "")
    notice = say("lti.course.regraded", n=int(regraded)).get(lang) if regraded.isdigit() else ""
    return page(
        request,
        "course.html",
        heading=say("lti.course.title", title=view.title).get(lang),
        view=view,
        verdicts=words("verdict", lang),
        outbox=await to_thread.run_sync(counts, tool, session.context_pk),
        csrf=csrf_of(request),
        notice=notice,
    )


@router.get("/course/learner/{learner}")
async def learner_page(learner: str, request: Request) -> HTMLResponse:
    """One learner's submissions, read-only: code and report (an instructor sees hidden cases' outcomes only, as
    the learner does; the full report stays in `judge grade`'s reports.jsonl)."""
    session = session_of(request, instructor=True)
    tool, lang = tool_of(request), lang_of(request)
    ids = await to_thread.run_sync(course.learner_submissions, tool, session.context_pk, learner)
    store = request.app.state.service.store
    items = []
    for sid in ids:
        sub = store.get(sid)
        report = Report.model_validate_json(sub.report) if sub is not None and sub.report else None
        if sub is not None:
            items.append(
                {
                    "id": sub.id,
                    "problem_id": sub.problem_id,
                    "created_at": sub.created_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
                    "verdict": words("verdict", lang).get(report.verdict.value, "") if report else sub.status,
                    "score": report.score if report else None,
                    "code": sub.code,
                    "report": report.public(lang) if report else None,
                }
            )
    name = await to_thread.run_sync(course.name_of, tool, learner)
    heading = say("lti.course.submissions", name=name or learner).get(lang)
    return page(request, "learner.html", heading=heading, items=items, status=200 if ids else 404)


@router.post("/course/regrade")
async def regrade(request: Request) -> Response:
    session = session_of(request, instructor=True)
    await checked_form(request)
    service = request.app.state.service
    n = await to_thread.run_sync(
        course.regrade_all, tool_of(request), service.store, service.dispatcher.submit, session.context_pk
    )
    return RedirectResponse(f"/lti/course?regraded={n}", status_code=303)


@router.get("/course/export.{fmt}")
async def export(fmt: str, request: Request) -> Response:
    session = session_of(request, instructor=True)
    if fmt not in ("csv", "xlsx"):
        return Response(status_code=404)
    tool, lang = tool_of(request), lang_of(request)
    view = await to_thread.run_sync(course.course_view, tool, session.context_pk, lang)
    rows = await to_thread.run_sync(course.export_rows, tool, request.app.state.service.store, view)
    if fmt == "csv":
        data, media = grades_csv(rows, lang), "text/csv; charset=utf-8"
    else:
        require("grade", "the course view's xlsx export")
        data, media = grades_xlsx(rows, lang), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    disposition = f'attachment; filename="grades.{fmt}"'
    return Response(data, media_type=media, headers={"Content-Disposition": disposition, "Cache-Control": "no-store"})
