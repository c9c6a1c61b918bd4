"""Request and response bodies of the JSON API (the contract; OpenAPI at /docs)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from judge.queue.store import QueueStatus
from judge.report.i18n import Lang
from judge.report.models import Limits, Mode, PublicReport, Titles


class ProblemSummary(BaseModel):
    id: str
    title: Titles
    difficulty: str
    chapter: str
    chapter_title: dict[str, str] = Field(
        default_factory=dict,
        description="The chapter's title ({zh, en}) and `url`, its section of the handbook where one is configured "
        "(problems/chapters.toml); the slug itself where none is named.",
    )
    device: str
    tags: list[str]
    needs: list[str] = Field(default_factory=list, description="Packages the exercise needs (problem.toml `needs`).")
    missing: list[str] = Field(
        default_factory=list,
        description="Those of `needs` this server lacks: it lists the exercise but refuses submissions for it (409).",
    )


class Statement(BaseModel):
    markdown: str
    html: str = Field(
        description="Rendered from the markdown, code highlighted with Pygments (classes of /pygments.css)."
    )


class ProblemDetail(ProblemSummary):
    statement: dict[Lang, Statement]
    starter: str = Field(description="The starter code the editor begins with.")
    solution_file: str
    limits: Limits
    public_tests: str = Field(description="Source of tests/test_public.py (what Run executes).")
    probes: str = Field(description="Source of tests/probes.py: what the tests call in your code (not secret).")
    public_tests_html: str = Field("", description="public_tests highlighted with Pygments (classes of /pygments.css).")
    probes_html: str = Field("", description="probes highlighted with Pygments (classes of /pygments.css).")


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problem_id: str = Field(max_length=16)
    code: str
    mode: Mode
    file_name: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9_.-]{1,100}\.py$",
        description="What messages call the file (default: the exercise's, e.g. 100.py); "
        "the command line's --server sends the local file's name.",
    )


class Accepted(BaseModel):
    id: str = Field(description="Unguessable; whoever holds it may read the submission and its events.")
    status: QueueStatus


class Listed(BaseModel):
    """What every view of a submission shows of it."""

    id: str
    problem_id: str
    mode: Mode
    status: QueueStatus
    created_at: datetime
    finished_at: datetime | None


class SubmissionOut(Listed):
    report: PublicReport | None = Field(description="The public report in the asked language; null until done.")
    code: str
    error_line: int | None = Field(None, description="Line of the learner's file an import error points at.")


class HistoryEntry(Listed):
    verdict: str | None
    passed: int | None
    total: int | None
    tiers: dict[str, str] = Field(
        default_factory=dict, description="As in the report: a skipped tier (no GPU here) leaves it unsolved."
    )


class ErrorOut(BaseModel):
    detail: str
