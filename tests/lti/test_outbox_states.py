"""The outbox's decisions, on stored judgements (no judging, no platform): best and latest policies, regrades,
faults and cancels, links without a line item, the backoff with jitter, and the JWKS after a rotation's overlap."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from sqlalchemy import update

from judge.queue.store import SqlStore, Submission, now
from judge.report.models import Report, Verdict
from web.lti.db import LtiDb
from web.lti.passback import Due, Outbox, enqueue
from web.lti.registry import Registry
from web.lti.settings import LtiSettings
from web.lti.tables import ContextRow, KeyRow, LinkRow, PassbackRow, UserRow
from web.lti.tool import LtiTool


class NoJudge:
    settings = None


@pytest.fixture()
def world(tmp_path):
    store = SqlStore(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    tool = LtiTool(LtiDb(store.engine), NoJudge(), b"k" * 32, LtiSettings(retry_base_s=4, retry_cap_s=10))  # type: ignore[arg-type]
    with tool.db.session.begin() as s:
        ctx = ContextRow(issuer="i", client_id="c", deployment_id="d", context_id="x", title="t", updated_at=now())
        s.add(ctx)
        s.flush()
        for n, (policy, lineitem) in enumerate((("best", "L"), ("latest", "L2"), ("best", None)), 1):
            s.add(
                LinkRow(
                    id=n,
                    context_pk=ctx.id,
                    resource_link_id=f"r{n}",
                    title="",
                    exercise="100",
                    score_policy=policy,
                    lineitem=lineitem,
                    ags_scopes="[]",
                    updated_at=now(),
                )
            )
        s.add(
            UserRow(
                learner="ada",
                issuer="i",
                client_id="c",
                deployment_id="d",
                context_id="x",
                sub="u1",
                name="Ada",
                email="",
                roles="[]",
                updated_at=now(),
            )
        )
    yield store, tool
    store.close()


def judged(store: SqlStore, tool: LtiTool, link: int, score: float | None, verdict=Verdict.accepted, **kw) -> str:
    """A stored LTI Submit that ended with this score (None: cancelled), and its outbox row."""
    sid = secrets.token_urlsafe(12)
    store.create(Submission(sid, "ada", "100", "submit", "code", "queued", now()), {"position": 1})
    enqueue(tool, sid, link, "ada", **kw)
    if score is None:
        store.cancel(sid)
    else:
        report = Report(problem="100", verdict=verdict, score=score, passed=int(score * 4), total=4)
        store.finish(sid, report.model_dump_json())
    Outbox(tool).settle()
    return sid


def state(tool: LtiTool, sid: str) -> str:
    with tool.db.session() as s:
        row = s.get(PassbackRow, sid)
        assert row is not None
        return row.state


def test_best_keeps_a_better_score_latest_sends_each(world):
    store, tool = world
    first = judged(store, tool, 1, 1.0)
    assert state(tool, first) == "pending"
    assert state(tool, judged(store, tool, 1, 0.5)) == "kept"  # a worse Submit does not lower the grade
    assert state(tool, judged(store, tool, 1, 1.0)) == "kept"  # nor does an equal one post again
    assert state(tool, judged(store, tool, 2, 1.0)) == "pending"
    assert state(tool, judged(store, tool, 2, 0.25)) == "pending"  # latest: the latest stands


def test_regrades_send_changes_only_and_faults_cancels_and_linkless_send_nothing(world):
    store, tool = world
    original = judged(store, tool, 1, 0.5)
    assert state(tool, judged(store, tool, 1, 0.5, regrade_of=original)) == "none"
    assert state(tool, judged(store, tool, 1, 0.25, regrade_of=original)) == "pending"  # a change, even lower
    assert state(tool, judged(store, tool, 1, 0.0, verdict=Verdict.internal_error)) == "none"
    assert state(tool, judged(store, tool, 1, None)) == "none"
    assert state(tool, judged(store, tool, 3, 1.0)) == "nolink"


def test_a_pending_row_is_claimed_once_and_backs_off_with_jitter(world):
    store, tool = world
    sid = judged(store, tool, 1, 1.0)
    one, two = Outbox(tool), Outbox(tool)
    two.me = "another-process"
    due = one.claim()
    assert isinstance(due, Due) and due.submission_id == sid and due.sub == "u1" and due.attempts == 1
    assert two.claim() is None  # held by the first sender until it answers or its lease ends
    waits = []
    for attempts in (1, 2, 3, 4):
        before = now()
        one._later(Due(**{**due.__dict__, "attempts": attempts}), "HTTP 503: busy")
        with tool.db.session() as s:
            row = s.get(PassbackRow, sid)
            waits.append((row.next_at.replace(tzinfo=before.tzinfo) - before).total_seconds())
            assert row.state == "pending" and row.last_error == "HTTP 503: busy" and row.claimed_by is None
        with tool.db.session.begin() as s:  # claimed again for the next try
            s.execute(update(PassbackRow).values(claimed_by=one.me))
    for wait, full in zip(waits, (4, 8, 10, 10)):  # base 4 s doubling, capped at 10 s, times 0.5..1
        assert 0.5 * full - 0.1 <= wait <= full + 0.1, waits


def test_a_retired_key_leaves_the_jwks_after_its_overlap(world):
    _, tool = world
    registry = Registry(tool.db)
    first = registry.signing_key().kid
    second = registry.rotate()
    assert [k["kid"] for k in registry.jwks()["keys"]] == [second, first]
    assert registry.signing_key().kid == second
    with tool.db.session.begin() as s:
        s.execute(update(KeyRow).where(KeyRow.kid == first).values(drop_at=now() - timedelta(seconds=1)))
    assert [k["kid"] for k in registry.jwks()["keys"]] == [second]
    assert all("d" not in key and "p" not in key for key in registry.jwks()["keys"])  # public parts only
