"""Judge one stored submission: the task every dispatcher backend runs (in-process pool now, Celery later)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from judge.errors import JudgeError
from judge.queue.outage import store_unreachable
from judge.queue.store import Store, Submission, Takeover
from judge.report import models
from judge.report.events import CaseFinished, CaseStarted, Collected, Event, EventSink
from judge.report.models import Mode, Report

log = logging.getLogger("web.judging")
Notify = Callable[[str], None]


class Grade(Protocol):
    """WebService._grade, the queue worker's: one submission judged, its events sent to on_event."""

    def __call__(
        self, submission: Submission, on_event: EventSink, cancel: threading.Event | None = None
    ) -> Report: ...


def internal_error(problem_id: str, mode: Mode, detail: str, what: str = "judge") -> Report:
    """A fault of the judge's (what: "judge" by default) as the stored report: judge.report.models.internal_error."""
    return models.internal_error(problem_id, mode, detail, what=what)


def event_record(event: Event) -> tuple[str, dict[str, Any]] | None:
    """How a judge event is stored: bilingual, projected to one language only when it is streamed."""
    if isinstance(event, Collected):
        return "collected", {"total": event.total}
    if isinstance(event, CaseStarted):  # a public case's name, or (once, nameless) that hidden cases run
        return "case_started", {"name": "" if event.hidden else event.name, "hidden": event.hidden}
    if isinstance(event, CaseFinished):
        return "case", event.model_dump(mode="json", exclude={"type"})
    return None  # Done: the stored report and its own "done" event close the stream instead


def judge_submission(
    store: Store,
    grade: Grade,
    submission_id: str,
    notify: Notify,
    cancel: threading.Event | None = None,
    worker: str | None = None,
    takeover: Takeover | None = None,
    on_stored: Callable[[Submission, Report], None] | None = None,
) -> Report | None:
    """Run one queued submission to exactly one stored report; a fault of the judge is an internal_error report.

    With `cancel` (set when the learner cancels), grade(submission, on_event, cancel) stops early; the store
    already says `cancelled`, so whatever report comes back is dropped by finish().
    worker, takeover: a queue worker's name, and whether it may judge again what a dead worker left running
    (judge.queue.store's state machine). on_stored(submission, report): once this call stored the report, before
    the stream's last event, so that whoever reads "done" finds what it wrote. Returns the report if this call
    stored it."""
    submission = store.start(submission_id, worker, takeover)
    if submission is None:
        return None  # judged already (a duplicate dispatch after a restart), or cancelled while queued
    notify(submission_id)

    def on_event(event: Event) -> None:
        record = event_record(event)
        if record is not None and not (cancel is not None and cancel.is_set()):
            try:
                stored = store.add_event(submission_id, *record, attempt=submission.attempts)
            except Exception as exc:
                if not store_unreachable(exc):
                    raise
                # The store is away mid-judgement: the judgement goes on (a progress event is not the verdict),
                # and the report is stored when the store is back, or the task goes back to the queue.
                return
            if stored is not None:
                notify(submission_id)

    try:
        report = grade(submission, on_event) if cancel is None else grade(submission, on_event, cancel)
    except JudgeError as exc:  # the problem vanished or changed its limits since the 202
        report = internal_error(submission.problem_id, submission.mode, exc.message, what="problem")
    except Exception as exc:
        log.exception("judging %s failed", submission_id)
        report = internal_error(submission.problem_id, submission.mode, f"{type(exc).__name__}: {exc}")
    stored = store.finish(submission_id, report.model_dump_json(), attempt=submission.attempts)
    if stored and on_stored is not None:
        on_stored(submission, report)
    notify(submission_id)
    return report if stored else None
