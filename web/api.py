"""JSON API: problems, submissions, history (the contract the page, the CLI's --server and clients share)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from judge.problem.folders import Problem, chapter_of, missing_needs, require_needs
from judge.report.catalog import say
from judge.report.i18n import LANGS, Lang, pick_lang
from web.markdown import render
from web.pages import highlighted
from web.projection import history_entry, submission_out
from web.schemas import (
    Accepted,
    ErrorOut,
    HistoryEntry,
    ProblemDetail,
    ProblemSummary,
    Statement,
    SubmissionIn,
    SubmissionOut,
)
from web.service import NotFound

if TYPE_CHECKING:
    from web.service import WebService

router = APIRouter(prefix="/api")
ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut},
    413: {"model": ErrorOut},
    409: {"model": ErrorOut, "description": "This server cannot judge the exercise (a package it needs is missing)"},
    422: {"description": "Malformed body"},
    429: {"model": ErrorOut},
    503: {"model": ErrorOut, "description": "Queue full (see Retry-After)"},
}
LangQuery = Query(None, description="zh or en; default: the page's cookie, then Accept-Language, then zh")


def service(request: Request) -> WebService:
    return cast("WebService", request.app.state.service)


def reader_lang(request: Request, lang: str | None) -> Lang:
    return pick_lang(lang, request.scope["state"].get("lang_cookie"), request.headers.get("accept-language"))


def summary(problem: Problem) -> dict[str, Any]:
    meta = problem.meta
    return dict(
        id=meta.id,
        title=meta.title,
        difficulty=meta.difficulty,
        chapter=meta.chapter,
        chapter_title=chapter_of(problem),
        device=meta.device,
        tags=meta.tags,
        needs=meta.needs,
        missing=missing_needs(problem),
    )


@router.get("/problems", response_model=list[ProblemSummary])
def list_problems(request: Request) -> list[dict[str, Any]]:
    return [summary(p) for p in service(request).judge.problems()]


@router.get("/problems/{problem_id}", response_model=ProblemDetail, responses={404: {"model": ErrorOut}})
def get_problem(problem_id: str, request: Request) -> ProblemDetail:
    problem = service(request).judge.problem(problem_id)

    def read(path: Path | None) -> str:
        return path.read_text(encoding="utf-8") if path is not None and path.exists() else ""

    statement = {lang: Statement(markdown=problem.prompt(lang), html=render(problem.prompt(lang))) for lang in LANGS}
    public_tests, probes = read(problem.tests_dir / "test_public.py"), read(problem.probes_path)
    return ProblemDetail(
        **summary(problem),
        statement=statement,
        starter=read(problem.starter_path),
        solution_file=problem.meta.solution_file,
        limits=problem.meta.limits,
        public_tests=public_tests,
        probes=probes,
        public_tests_html=highlighted(public_tests),
        probes_html=highlighted(probes),
    )


# OpenAPI links: from a new submission's id to every route that takes it (clients and schemathesis's stateful
# tests follow them).
SUBMISSION_LINKS = {
    name: {"operationId": operation, "parameters": {"submission_id": "$response.body#/id"}}
    for name, operation in (
        ("GetSubmission", "get_submission_api_submissions__submission_id__get"),
        ("SubmissionEvents", "events_api_submissions__submission_id__events_get"),
        ("CancelSubmission", "cancel_submission_api_submissions__submission_id__cancel_post"),
    )
}


@router.post(
    "/submissions",
    status_code=202,
    response_model=Accepted,
    responses={**ERRORS, 202: {"description": "Queued", "links": SUBMISSION_LINKS}},
)
def create_submission(body: SubmissionIn, request: Request) -> JSONResponse:
    judge = service(request).judge
    if judge.settings.sandbox != "docker":  # an exercise this server cannot judge (107 without Triton): 409
        require_needs(judge.problem(body.problem_id), on_server=True)
    sub = service(request).submit(
        request.scope["state"]["learner"],
        body.problem_id,
        body.code,
        body.mode,
        body.file_name,
        address=request.scope["state"].get("address"),
    )
    on_submitted = request.scope["state"].get("on_submitted")  # an LTI session's: the grade passback's outbox row
    if on_submitted is not None:
        on_submitted(sub)
    return JSONResponse(
        Accepted(id=sub.id, status=sub.status).model_dump(),
        status_code=202,
        headers={"Location": f"/api/submissions/{sub.id}"},
    )


@router.post(
    "/submissions/{submission_id}/cancel",
    status_code=202,
    response_model=Accepted,
    responses={403: {"model": ErrorOut}, 404: {"model": ErrorOut}, 409: {"model": ErrorOut}},
    description="Stop a queued or running submission (only the browser that sent it, by its cookie): it ends "
    "with status `cancelled` and no report, and its event stream closes with a `cancelled` event. "
    "409 once it has ended.",
)
def cancel_submission(submission_id: str, request: Request) -> Accepted:
    service(request).cancel(request.scope["state"]["learner"], submission_id)
    return Accepted(id=submission_id, status="cancelled")


@router.get("/submissions", response_model=list[HistoryEntry])
def history(
    request: Request, problem_id: str | None = None, limit: int = Query(20, ge=1, le=200)
) -> list[HistoryEntry]:
    subs = service(request).store.history(request.scope["state"]["learner"], problem_id, limit)
    return [history_entry(s) for s in subs]


@router.get("/submissions/{submission_id}", response_model=SubmissionOut, responses={404: {"model": ErrorOut}})
def get_submission(submission_id: str, request: Request, lang: Lang | None = LangQuery) -> SubmissionOut:
    sub = service(request).store.get(submission_id)
    if sub is None:
        raise NotFound(say("web.no_submission"))
    return submission_out(sub, reader_lang(request, lang))
