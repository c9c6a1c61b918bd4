"""The learner's extras beside judging: Try (your own input, POST /api/try), the progress shared with the terminal
(GET /api/progress), and the learner's guide (GET /guide)."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import cast

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from judge.errors import JudgeError
from judge.problem.trying import MAX_INPUT_BYTES, ProblemTry, parse_input
from judge.queue import progress
from judge.report.catalog import say
from judge.report.i18n import LANGS, Lang
from judge.report.trying import PublicTry
from web.api import ERRORS, LangQuery, reader_lang, service
from web.judgelike import TriesInput
from web.markdown import render
from web.pages import TEMPLATES, page_texts, texts_json
from web.service import Busy

router = APIRouter()
GUIDE = Path(__file__).resolve().parents[1] / "docs"


class TryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problem_id: str = Field(max_length=16)
    code: str = Field(description="Your file, as Run would send it.")
    input: str = Field(max_length=MAX_INPUT_BYTES, description="Your input: the TOML form of `judge try`.")


class TryOpOut(BaseModel):
    name: str
    args: list[str]
    example: str


class ProgressOut(BaseModel):
    shared: bool = Field(
        description="This server shares the learner's data folder with their terminal (their own `judge serve`): "
        "`terminal` holds the CLI's last judgement of each exercise. False: a server elsewhere, kept apart."
    )
    terminal: dict[str, progress.Entry] = Field(default_factory=dict)


class TrySlots:
    """How many Tries this web process runs at once (WebSettings.try_slots): a Try holds workers for seconds."""

    def __init__(self, slots: int):
        self.semaphore = threading.BoundedSemaphore(max(slots, 1))
        self.enabled = slots > 0


def _slots(request: Request) -> TrySlots:
    app = request.app
    if not hasattr(app.state, "try_slots"):
        app.state.try_slots = TrySlots(service(request).settings.try_slots)
    return cast(TrySlots, app.state.try_slots)


@router.get("/api/problems/{problem_id}/try", response_model=list[TryOpOut], responses={404: ERRORS[404]})
def try_ops(problem_id: str, request: Request) -> list[TryOpOut]:
    """What an exercise lets you try on your own input: each operator, its arguments, an example to start from."""
    problem = service(request).judge.problem(problem_id)
    ops = ProblemTry(problem).require()
    return [TryOpOut(name=name, args=op.args, example=op.example.strip() + "\n") for name, op in ops.items()]


@router.post("/api/try", response_model=PublicTry, responses={**ERRORS, 404: ERRORS[404]})
def run_try(body: TryIn, request: Request, lang: Lang | None = LangQuery) -> PublicTry:
    """Run your operator and the reference on your own input (the TOML form of `judge try`), each in a sandboxed
    worker under the exercise's limits: both outputs, their differences and the op trace. Nothing is stored and no
    verdict is given; only public behaviour runs (the reference on your input, never a hidden case). 503 with
    Retry-After while this server runs as many Tries as it allows."""
    web = service(request)
    problem = web.judge.problem(body.problem_id)
    parse_input(body.input, ProblemTry(problem).require())  # a bad input is refused before a slot is taken
    slots = _slots(request)
    if not slots.enabled or not isinstance(web.judge, TriesInput):
        raise TryUnavailable(say("try.not_here"))
    if not slots.semaphore.acquire(blocking=False):
        raise Busy(say("try.busy"))
    try:
        result = web.judge.try_input(problem.id, body.code, body.input)  # a worker pair: runs in FastAPI's pool
    finally:
        slots.semaphore.release()
    return result.public(reader_lang(request, lang))


class TryUnavailable(JudgeError):
    http_status = 409


@router.get("/api/progress", response_model=ProgressOut)
def shared_progress(request: Request) -> ProgressOut:
    """The terminal's last judgement of each exercise, where this server shares the learner's data folder."""
    settings = service(request).settings
    if not settings.shares_progress():
        return ProgressOut(shared=False)
    return ProgressOut(shared=True, terminal=progress.read(settings.data_dir).cli)


@lru_cache(maxsize=2)
def guide_html(lang: Lang) -> str:
    return render((GUIDE / f"learner-guide.{lang}.md").read_text(encoding="utf-8"))


@router.get("/guide", include_in_schema=False)
def guide(request: Request, lang: str | None = Query(None)) -> HTMLResponse:
    """The learner's guide, in both languages (the page's switch picks one); Swagger stays at /docs."""
    chosen = reader_lang(request, lang)
    texts = page_texts()[chosen]
    html = TEMPLATES.get_template("guide.html").render(
        lang=chosen,
        t=lambda key: texts.get(key, key),
        texts_json=texts_json(),
        guides={side: guide_html(side) for side in LANGS},
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-cache"})
