"""The pytest plugin inside the checker: provides fixtures, reports each case as an event."""

from __future__ import annotations

import base64
import pickle
from collections.abc import Callable, Generator
from typing import Any

import pytest

from judge.checker.errors import LearnerError, Tampered, WorkerLost
from judge.checker.events import (
    MAX_TRACE_FRAME,
    CaseEnded,
    CaseStarted,
    Collected,
    CollectedCase,
    CollectError,
    EventWriter,
    ImportProblem,
    TraceRequest,
)
from judge.checker.events import ImportFailed as ImportFailedEvent
from judge.checker.messages import CaseFailed, NotRun, case_message, failure_text, import_failure, probe_failure
from judge.checker.remote import ImportFailed, Remote
from judge.checker.tiers import tier_of
from judge.report.catalog import say
from judge.report.feedback import as_text
from judge.report.i18n import Text
from judge.report.models import ProblemMeta
from judge.wire.channel import encode

HIDDEN_FILE = "test_hidden.py"
MAX_TRACED = 3  # failing public cases traced per judgement: the first ones are what a learner reads first


class CaseState:
    def __init__(self, name: str, hidden: bool):
        self.name, self.hidden = name, hidden
        self.outcome, self.message, self.detail, self.duration = "passed", Text(), "", 0.0
        self.hint = Text()
        self.tampered = False  # the worker's guard found the judge's own code changed
        self.line: int | None = None  # the learner's line the case's exception points at
        self.call: TraceRequest | None = None  # its last probe call the problem traces (ProblemMeta.op_trace)


def marker_hint(item: pytest.Item) -> Text:
    """@pytest.mark.hint("中文", "English"), hint(zh=..., en=...), or one msg()-encoded argument: static text
    from the problem folder (a single plain string reads the same in both languages)."""
    marker = item.get_closest_marker("hint")
    if marker is None:
        return Text()
    zh = marker.kwargs.get("zh", marker.args[0] if marker.args else "")
    en = marker.kwargs.get("en", marker.args[1] if len(marker.args) > 1 else None)
    return as_text(zh) if en is None else Text(zh=str(zh), en=str(en))


def marker_weight(item: pytest.Item) -> float:
    """@pytest.mark.weight(n): the case's share of the score (default 1). A bad weight is the author's error."""
    marker = item.get_closest_marker("weight")
    if marker is None:
        return 1.0
    value = float(marker.args[0] if marker.args else marker.kwargs["n"])
    if not value >= 0:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.weight needs a number >= 0, not {value!r}")
    return value


def _cause(hint: object, causes: list[tuple[Any, ...]], exc: LearnerError) -> tuple[object, int | None]:
    """(what to say before the exception, the learner's line): the first of the problem's causes whose text the
    exception holds, with its own line where it names one; else the hint, with its guess only when the learner's
    code raised from no line of its own; the line defaults to the exception's."""
    said = f"{exc.type_name}: {exc.message}"
    for text, why, *where in causes:
        if text in said:
            return why, (where[0] if where else None) or exc.learner_line
    if isinstance(hint, tuple):  # (hint, guess): judge.report.feedback.guessing
        what, guess = hint
        if not exc.learner_line:
            return say("case.guessed", hint=as_text(what), guess=as_text(guess)), None
        return what, exc.learner_line
    return hint, exc.learner_line


class JudgePlugin:
    def __init__(
        self,
        remote: Remote,
        events: EventWriter,
        meta: ProblemMeta,
        display_name: str,
        among: Callable[[], int] = lambda: 0,
    ):
        self._remote, self.events, self.meta, self.display_name = remote, events, meta, display_name
        self.among = among  # the pass's cases across its shards, once collected (0: the pass is not split)
        self.cases: dict[str, CaseState] = {}
        self.import_lost = False
        self.current: CaseState | None = None  # the case running now
        self.traced = 0  # failing cases given a trace request so far (at most MAX_TRACED)

    @pytest.fixture(scope="session")
    def remote(self) -> Remote:
        return self._remote

    @pytest.fixture(scope="session")
    def probe(self, request: pytest.FixtureRequest) -> Callable[..., Any]:
        """probe(name, *args, hint=..., **kwargs): remote.call, except that an exception raised by the
        learner's code fails the case with `hint` (plain or msg()-encoded) followed by the exception's first
        line and line number, in both languages. A hint given as (hint, guess) (judge.report.feedback.guessing)
        adds its guess at the cause only when the learner's code raised from no line of its own. Where the
        problem's conftest defines a `probe_causes` fixture ([(text in what was raised, msg(zh, en)[, line]),
        ...]: the traps its statement warns about), the first cause whose text the exception holds names the
        cause instead of the test's general hint, and its line (the learner's, where the cause can name one the
        traceback cannot) instead of the exception's."""
        try:
            causes = list(request.getfixturevalue("probe_causes"))
        except pytest.FixtureLookupError:
            causes = []

        def call(name: str, *args: Any, hint: object, **kwargs: Any) -> Any:
            if name in self.meta.op_trace and self.current is not None and not self.current.hidden:
                self.current.call = trace_request(name, list(args), kwargs)
            try:
                return self._remote.call(name, *args, **kwargs)
            except LearnerError as exc:
                why, line = _cause(hint, causes, exc)
                raise CaseFailed(probe_failure(why, exc, self.display_name, line), line) from None

        return call

    @pytest.fixture(scope="session")
    def problem(self) -> ProblemMeta:
        return self.meta

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.events.send(CollectError(detail=str(report.longrepr)[-4000:]))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            case = self.cases[item.nodeid] = CaseState(item.name, item.path.name == HIDDEN_FILE)
            case.hint = marker_hint(item)
        self.events.send(
            Collected(
                cases=[
                    CollectedCase(
                        id=item.nodeid,
                        name=self.cases[item.nodeid].name,
                        hidden=self.cases[item.nodeid].hidden,
                        tier=tier_of(item),
                        weight=marker_weight(item),
                    )
                    for item in session.items
                ],
                among=self.among(),
            )
        )
        hello = self._remote.handshake()
        if hello["import"] == "error":
            problem = ImportProblem(type=hello["type"], message=hello["message"], line=hello["learner_line"])
            self.events.send(ImportFailedEvent(error=problem, message=import_failure(hello, self.display_name)))
        elif hello["import"] == "lost" and not self._remote.tampered:
            # The handshake never came back: the file did not finish importing (a limit, or it exited). Every
            # case is "not run"; the judge words the verdict from what the sandbox saw.
            self.import_lost = True
            self.events.send(ImportFailedEvent(error=ImportProblem(lost=True)))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self._remote.import_error is not None or self.import_lost:
            raise NotRun()

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        case = self.cases[nodeid]
        self.current = case
        self.events.send(CaseStarted(id=nodeid, name=case.name, hidden=case.hidden))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        case = self.cases[item.nodeid]
        case.duration += call.duration
        if report.passed and report.when == "call" and case.outcome == "passed":
            # A passing case may carry a note for the learner: record_property("note", msg(zh, en)).
            notes = [value for key, value in item.user_properties if key == "note"]
            if notes:
                case.message = as_text(notes[-1])
        if report.skipped and case.outcome == "passed":
            case.outcome, case.message = "skipped", _skip_text(report)
        elif report.failed and case.outcome in ("passed", "skipped"):
            exc = call.excinfo.value if call.excinfo else None
            lost = isinstance(exc, (WorkerLost, ImportFailed, NotRun))
            case.outcome = "failed" if report.when == "call" and not lost else "error"
            case.message = case_message(exc, self.display_name) if exc is not None else say("case.failed")
            case.detail = str(report.longrepr)[-4000:]
            case.tampered = isinstance(exc, Tampered)
            case.line = exc.learner_line if isinstance(exc, LearnerError) else getattr(exc, "line", None)
        return report

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        case = self.cases[nodeid]
        self.current = None
        # A failing public case's traced call goes to the judge, which traces it in workers of their own after
        # this pass (judge.grading.tracing): nothing of it runs in this pass, so no verdict depends on it.
        traced = case.call if case.outcome == "failed" and not case.hidden and self.traced < MAX_TRACED else None
        self.traced += traced is not None
        self.events.send(
            CaseEnded(
                id=nodeid,
                name=case.name,
                hidden=case.hidden,
                outcome=case.outcome,
                message=case.message,
                hint=case.hint,
                detail=case.detail,
                duration_s=round(case.duration, 4),
                tampered=case.tampered,
                line=case.line,
                trace_request=traced,
            )
        )


def trace_request(probe: str, args: list[Any], kwargs: dict[str, Any]) -> TraceRequest | None:
    """The call as the channel would carry it (so the trace pass sends the very same inputs), or None when it
    is too large to trace."""
    try:
        frame = encode({"args": args, "kwargs": kwargs})
    except (ValueError, TypeError, RuntimeError, pickle.PicklingError):
        return None
    if len(frame) > MAX_TRACE_FRAME:
        return None
    return TraceRequest(probe=probe, frame=base64.b64encode(frame).decode("ascii"))


def _skip_reason(report: pytest.TestReport) -> str:
    """The reason a skip marker gave (pytest keeps (file, line, "Skipped: reason") for a skip)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return ""


def _skip_text(report: pytest.TestReport) -> Text:
    """ "skipped: <reason>" when the test gave one (pytest.skip(msg(...)) works too)."""
    reason = _skip_reason(report).strip()
    return say("case.skipped_because", reason=failure_text(reason)) if reason else say("case.skipped")
