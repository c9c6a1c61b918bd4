"""The instructor's course view: the roster (NRPS), each learner's best per linked exercise, regrade, export."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from judge.batch.rows import Row
from judge.queue.store import Store, Submission, now
from judge.queue.tables import SubmissionRow
from judge.report.catalog import say
from judge.report.i18n import Lang
from judge.report.models import Report
from web.lti.passback import enqueue
from web.lti.tables import ContextRow, LinkRow, PassbackRow, UserRow
from web.lti.tool import LtiTool


@dataclass
class Cell:
    """One learner's standing on one linked exercise."""

    count: int = 0
    verdict: str = ""
    score: float | None = None
    best_id: str = ""
    passback: str = ""  # the state of the latest score's passback, described
    passback_state: str = ""


@dataclass
class Person:
    learner: str
    name: str
    sub: str
    cells: dict[int, Cell] = field(default_factory=dict)  # link id -> cell


@dataclass
class CourseView:
    title: str
    links: list[LinkRow]
    people: list[Person]
    roster_note: str = ""
    outbox: dict[str, int] = field(default_factory=dict)


def _passback_text(row: PassbackRow, lang: Lang) -> str:
    fields: dict[str, Any] = {"attempts": row.attempts, "error": row.last_error}
    return say(f"lti.passback.{row.state}", **fields).get(lang).strip()


def _members(tool: LtiTool, ctx: ContextRow, lang: Lang) -> tuple[list[dict[str, Any]], str]:
    if not ctx.memberships_url:
        return [], say("lti.course.no_roster").get(lang)
    try:
        return tool.members(ctx.issuer, ctx.client_id, ctx.memberships_url), ""
    except Exception as exc:  # noqa: BLE001 - the platform away or refusing: the view still shows who submitted
        return [], say("lti.course.roster_failed", why=f"{type(exc).__name__}: {exc}"[:300]).get(lang)


def _is_learner(member: dict[str, Any]) -> bool:
    roles = [str(r) for r in member.get("roles") or []]
    return any(r.endswith("Learner") for r in roles) or not roles


def course_view(tool: LtiTool, context_pk: int, lang: Lang) -> CourseView:
    """Everyone of the roster who learns (and anyone else who submitted), with their best per exercise."""
    with tool.db.session() as s:
        ctx = s.get(ContextRow, context_pk)
        assert ctx is not None
        links = list(s.scalars(select(LinkRow).where(LinkRow.context_pk == context_pk).order_by(LinkRow.id)))
        users = {u.sub: u for u in s.scalars(select(UserRow).where(*_same_course(ctx)))}
        rows = s.execute(
            select(PassbackRow, SubmissionRow)
            .join(SubmissionRow, SubmissionRow.id == PassbackRow.submission_id)
            .where(PassbackRow.link_id.in_([link.id for link in links]))
            .order_by(SubmissionRow.created_at)
        ).all()
    members, note = _members(tool, ctx, lang)
    people: dict[str, Person] = {}
    for member in members:
        if not _is_learner(member) or member.get("status", "Active") != "Active":
            continue
        sub = str(member.get("user_id"))
        learner = tool.learner_id(ctx.issuer, ctx.deployment_id, ctx.context_id, sub)
        people[learner] = Person(learner, str(member.get("name") or sub), sub)
    by_learner = {u.learner: u for u in users.values()}
    for passback, sub_row in rows:
        user = by_learner.get(passback.learner)
        person = people.setdefault(
            passback.learner,
            Person(passback.learner, user.name if user else passback.learner, user.sub if user else ""),
        )
        cell = person.cells.setdefault(passback.link_id, Cell())
        _count(cell, passback, sub_row, lang)
    ordered = sorted(people.values(), key=lambda p: (p.name.lower(), p.sub))
    return CourseView(ctx.title, links, ordered, note)


def _count(cell: Cell, passback: PassbackRow, sub_row: SubmissionRow, lang: Lang) -> None:
    if passback.regrade_of is None:
        cell.count += 1
    cell.passback, cell.passback_state = _passback_text(passback, lang), passback.state
    if sub_row.report is None:
        return
    report = Report.model_validate_json(sub_row.report)
    if cell.score is None or report.score >= cell.score:
        cell.score, cell.verdict, cell.best_id = report.score, report.verdict.value, sub_row.id


def _same_course(ctx: ContextRow) -> list[Any]:
    return [
        UserRow.issuer == ctx.issuer,
        UserRow.deployment_id == ctx.deployment_id,
        UserRow.context_id == ctx.context_id,
    ]


def learner_submissions(tool: LtiTool, context_pk: int, learner: str) -> list[str]:
    """The submission ids of one learner of this course (newest first); none for a learner of another course."""
    with tool.db.session() as s:
        links = select(LinkRow.id).where(LinkRow.context_pk == context_pk)
        return list(
            s.scalars(
                select(PassbackRow.submission_id)
                .join(SubmissionRow, SubmissionRow.id == PassbackRow.submission_id)
                .where(PassbackRow.learner == learner, PassbackRow.link_id.in_(links))
                .order_by(SubmissionRow.created_at.desc())
            )
        )


def regrade_all(tool: LtiTool, store: Store, dispatch: Callable[[str], None], context_pk: int) -> int:
    """Judge again each learner's latest Submit per exercise of this course; changed scores are passed back."""
    with tool.db.session() as s:
        links = select(LinkRow.id).where(LinkRow.context_pk == context_pk)
        rows = s.execute(
            select(PassbackRow.link_id, PassbackRow.learner, SubmissionRow.id)
            .join(SubmissionRow, SubmissionRow.id == PassbackRow.submission_id)
            .where(PassbackRow.link_id.in_(links), SubmissionRow.status == "done")
            .order_by(SubmissionRow.created_at)
        ).all()
    latest = {(link_id, learner): sid for link_id, learner, sid in rows}  # the last one of each pair wins
    for (link_id, learner), sid in latest.items():
        old = store.get(sid)
        if old is None:
            continue
        fresh = Submission(
            id=secrets.token_urlsafe(18),
            learner=learner,
            problem_id=old.problem_id,
            mode="submit",
            code=old.code,
            status="queued",
            created_at=now(),
            file_name=old.file_name,
        )
        store.create(fresh, {"position": 0, "regrade": True})
        enqueue(tool, fresh.id, link_id, learner, regrade_of=sid)
        dispatch(fresh.id)
    return len(latest)


def export_rows(tool: LtiTool, store: Store, view: CourseView) -> list[Row]:
    """`judge grade`'s rows: one per learner and linked exercise, from their best submission."""
    out: list[Row] = []
    titles = {link.id: link for link in view.links}
    for person in view.people:
        for link_id, link in titles.items():
            cell = person.cells.get(link_id)
            best = store.get(cell.best_id) if cell is not None and cell.best_id else None
            report = Report.model_validate_json(best.report) if best is not None and best.report else None
            student = person.sub or person.learner
            if best is None or report is None:
                continue
            digest = hashlib.sha256(best.code.encode("utf-8", "surrogatepass")).hexdigest()
            row = Row.judged(student, f"{link.exercise}/{best.id}", digest, report, name=person.name)
            row.notes.append(f"link={link.title or link.resource_link_id}; submissions={cell.count if cell else 0}")
            row.points, row.max_points = round(report.score * 100, 2), 100.0
            row.submitted = best.created_at
            out.append(row)
    return out


def name_of(tool: LtiTool, learner: str) -> str:
    with tool.db.session() as s:
        user = s.get(UserRow, learner)
        return user.name if user is not None else ""
