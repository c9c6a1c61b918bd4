"""JSON API: problems, submissions, history (the contract of issue 10)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from judge.i18n import Lang, pick_lang
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

router = APIRouter(prefix="/api")
ERRORS = {
    404: {"model": ErrorOut},
    413: {"model": ErrorOut},
    422: {"description": "Malformed body"},
    429: {"model": ErrorOut},
    503: {"model": ErrorOut, "description": "Queue full (see Retry-After)"},
}
LangQuery = Query(None, description="zh or en; default: the page's cookie, then Accept-Language, then zh")


def service(request: Request):
    return request.app.state.service


def reader_lang(request: Request, lang: str | None) -> Lang:
    return pick_lang(lang, request.scope["state"].get("lang_cookie"), request.headers.get("accept-language"))


def summary(problem) -> dict:
    meta = problem.meta
    return dict(
        id=meta.id,
        title=meta.title,
        difficulty=meta.difficulty,
        chapter=meta.chapter,
        device=meta.device,
        tags=meta.tags,
    )


@router.get("/problems", response_model=list[ProblemSummary])
def list_problems(request: Request):
    return [summary(p) for p in service(request).judge.problems()]


@router.get("/problems/{problem_id}", response_model=ProblemDetail, responses={404: {"model": ErrorOut}})
def get_problem(problem_id: str, request: Request):
    problem = service(request).judge.problem(problem_id)
    read = lambda path: path.read_text(encoding="utf-8") if path.exists() else ""  # noqa: E731
    statement = {
        lang: Statement(markdown=problem.prompt(lang), html=render(problem.prompt(lang))) for lang in ("zh", "en")
    }
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


@router.post("/submissions", status_code=202, response_model=Accepted, responses=ERRORS)
def create_submission(body: SubmissionIn, request: Request):
    sub = service(request).submit(
        request.scope["state"]["learner"],
        body.problem_id,
        body.code,
        body.mode,
        body.file_name,
        address=request.scope["state"].get("address"),
    )
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
def cancel_submission(submission_id: str, request: Request):
    service(request).cancel(request.scope["state"]["learner"], submission_id)
    return Accepted(id=submission_id, status="cancelled")


@router.get("/submissions", response_model=list[HistoryEntry])
def history(request: Request, problem_id: str | None = None, limit: int = Query(20, ge=1, le=200)):
    subs = service(request).store.history(request.scope["state"]["learner"], problem_id, limit)
    return [history_entry(s) for s in subs]


@router.get("/submissions/{submission_id}", response_model=SubmissionOut, responses={404: {"model": ErrorOut}})
def get_submission(submission_id: str, request: Request, lang: Literal["zh", "en"] | None = LangQuery):
    sub = service(request).store.get(submission_id)
    if sub is None:
        raise HTTPException(404, "no such submission")
    return submission_out(sub, reader_lang(request, lang))
