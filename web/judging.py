"""Judge one stored submission: the task every dispatcher backend runs (in-process pool now, Celery later)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from judge.catalog import say
from judge.errors import JudgeError
from judge.events import CaseFinished, Collected, Event
from judge.models import Fault, Report, Verdict
from web.store import Store

log = logging.getLogger("web.judging")
Notify = Callable[[str], None]


def internal_error(problem_id: str, mode: str, detail: str, what: str = "judge") -> Report:
    return Report(
        problem=problem_id,
        verdict=Verdict.internal_error,
        score=0,
        passed=0,
        total=0,
        mode=mode,
        message=say("internal_error"),
        detail=detail,
        fault=Fault(what=what, retryable=True),
    )


def event_record(event: Event) -> tuple[str, dict] | None:
    """How a judge event is stored: bilingual, projected to one language only when it is streamed."""
    if isinstance(event, Collected):
        return "collected", {"total": event.total}
    if isinstance(event, CaseFinished):
        return "case", event.model_dump(mode="json", exclude={"type"})
    return None  # Done: the stored report and its own "done" event close the stream instead


def judge_submission(store: Store, grade, submission_id: str, notify: Notify) -> None:
    """Run one queued submission to exactly one stored report; a fault of the judge is an internal_error report."""
    submission = store.start(submission_id)
    if submission is None:
        return  # judged already (a duplicate dispatch after a restart)
    notify(submission_id)

    def on_event(event: Event) -> None:
        record = event_record(event)
        if record is not None:
            store.add_event(submission_id, *record)
            notify(submission_id)

    try:
        report = grade(submission, on_event)
    except JudgeError as exc:  # the problem vanished or changed its limits since the 202
        report = internal_error(submission.problem_id, submission.mode, exc.message, what="problem")
    except Exception as exc:
        log.exception("judging %s failed", submission_id)
        report = internal_error(submission.problem_id, submission.mode, f"{type(exc).__name__}: {exc}")
    store.finish(submission_id, report.model_dump_json())
    notify(submission_id)
