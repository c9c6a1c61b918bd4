"""The page: one HTML shell for / and /problems/{id} (the script renders from the API), its texts, /docs, CSS."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from judge.errors import UnknownProblem
from judge.report.catalog import MESSAGES
from judge.report.i18n import LANGS, Lang, pick_lang
from web.markdown import pygments_css

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
TEMPLATES = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
PAGE_IDS = ("page.", "verdict.")  # the catalogue's entries the page shows (verdict names come with them)
router = APIRouter(include_in_schema=False)


@lru_cache(maxsize=1)
def page_texts() -> dict[Lang, dict[str, str]]:
    """The page's strings, from the one catalogue: {lang: {id without "page.": text}}."""
    texts: dict[Lang, dict[str, str]] = {lang: {} for lang in LANGS}
    for msg_id, sides in MESSAGES.items():
        if msg_id.startswith(PAGE_IDS):
            key = msg_id.removeprefix("page.")
            for lang, text in zip(LANGS, sides):
                texts[lang][key] = text
    return texts


def texts_json() -> str:
    """The strings as a JSON data block inside the HTML: `<` escaped, so no text can close the <script> element."""
    return json.dumps(page_texts(), ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def shell(request: Request, status: int = 200) -> HTMLResponse:
    lang = pick_lang(request.scope["state"].get("lang_cookie"), request.headers.get("accept-language"))
    texts = page_texts()[lang]
    lti = request.scope["state"].get("lti")  # a learner launched from an LMS: named as the LMS names them
    html = TEMPLATES.get_template("index.html").render(
        lang=lang, t=lambda key: texts.get(key, key), texts_json=texts_json(), learner_name=getattr(lti, "name", "")
    )
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-cache"})


@router.get("/")
def index(request: Request) -> HTMLResponse:
    return shell(request)


@router.get("/problems/{problem_id}")
def problem_page(problem_id: str, request: Request) -> HTMLResponse:
    try:
        request.app.state.service.judge.problem(problem_id)
    except UnknownProblem:
        return shell(request, 404)  # the page itself says so, in the reader's language
    return shell(request)


@router.get("/pygments.css")
def highlight_css() -> Response:
    return Response(pygments_css(), media_type="text/css", headers={"Cache-Control": "max-age=3600"})


@router.get("/docs")
def docs() -> HTMLResponse:
    """Swagger UI from our own static files (built by web/frontend), so the API's page works offline."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="practice-judge API",
        swagger_js_url="/static/swagger/swagger-ui-bundle.js",
        swagger_css_url="/static/swagger/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
    )


SOURCE_FORMATTER = HtmlFormatter(nowrap=True)


def highlighted(source: str) -> str:
    """Python source as Pygments HTML (classes of /pygments.css), for the public-tests and probes tabs."""
    return str(highlight(source, PythonLexer(), SOURCE_FORMATTER)) if source else ""
