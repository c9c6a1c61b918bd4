"""The page: one HTML shell for / and /problems/{id} (the script renders from the API), static files, CSS."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from judge.errors import UnknownProblem
from web.markdown import pygments_css

STATIC = Path(__file__).resolve().parent / "static"
router = APIRouter(include_in_schema=False)


def shell(status: int = 200) -> FileResponse:
    return FileResponse(
        STATIC / "index.html",
        status_code=status,
        media_type="text/html; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/")
def index():
    return shell()


@router.get("/problems/{problem_id}")
def problem_page(problem_id: str, request: Request):
    try:
        request.app.state.service.judge.problem(problem_id)
    except UnknownProblem:
        return shell(404)  # the page itself says so, in the reader's language
    return shell()


@router.get("/pygments.css")
def highlight_css():
    return Response(pygments_css(), media_type="text/css", headers={"Cache-Control": "max-age=3600"})
