"""The pytest plugin inside the checker: provides fixtures, reports each case as an event."""

from __future__ import annotations

import pytest

from judge.checker.errors import LearnerError, WorkerLost
from judge.checker.events import EventWriter
from judge.checker.messages import case_message, import_failure, learner_failure
from judge.checker.remote import ImportFailed, Remote
from judge.checker.tiers import tier_of
from judge.feedback import as_text
from judge.models import ProblemMeta

HIDDEN_FILE = "test_hidden.py"


class CaseState:
    def __init__(self, name: str, hidden: bool):
        self.name, self.hidden = name, hidden
        self.outcome, self.message, self.detail, self.duration = "passed", "", "", 0.0
        self.hint: dict = {}


class JudgePlugin:
    def __init__(self, remote: Remote, events: EventWriter, meta: ProblemMeta, display_name: str):
        self._remote, self.events, self.meta, self.display_name = remote, events, meta, display_name
        self.cases: dict[str, CaseState] = {}

    @pytest.fixture(scope="session")
    def remote(self) -> Remote:
        return self._remote

    @pytest.fixture(scope="session")
    def probe(self):
        """probe(name, *args, hint=..., **kwargs): remote.call, except that an exception raised by the
        learner's code fails the case with `hint` followed by the exception's first line and line number."""

        def call(name, *args, hint, **kwargs):
            try:
                return self._remote.call(name, *args, **kwargs)
            except LearnerError as exc:
                raise AssertionError(learner_failure(hint, exc, self.display_name)) from None

        return call

    @pytest.fixture(scope="session")
    def problem(self) -> ProblemMeta:
        return self.meta

    def pytest_collectreport(self, report):
        if report.failed:
            self.events.send({"type": "collect_error", "detail": str(report.longrepr)[-4000:]})

    def pytest_collection_finish(self, session):
        for item in session.items:
            case = self.cases[item.nodeid] = CaseState(item.name, item.path.name == HIDDEN_FILE)
            marker = item.get_closest_marker("hint")  # @pytest.mark.hint(zh, en): static, from the problem folder
            if marker is not None and len(marker.args) == 2:
                case.hint = {"zh": str(marker.args[0]), "en": str(marker.args[1])}
        self.events.send({"type": "collected",
                          "cases": [{"id": item.nodeid, "name": self.cases[item.nodeid].name,
                                     "hidden": self.cases[item.nodeid].hidden, "tier": tier_of(item)}
                                    for item in session.items]})
        hello = self._remote.handshake()
        if hello["import"] == "error":
            self.events.send({"type": "import_error", "error": hello,
                              "message": import_failure(hello, self.display_name)})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        if self._remote.import_error is not None:
            raise ImportFailed(import_failure(self._remote.import_error, self.display_name))

    def pytest_runtest_logstart(self, nodeid, location):
        case = self.cases[nodeid]
        self.events.send({"type": "case_started", "name": case.name, "hidden": case.hidden})

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        case = self.cases[item.nodeid]
        case.duration += call.duration
        if report.skipped and case.outcome == "passed":
            case.outcome, case.message = "skipped", _skip_reason(report) or "跳过"
        elif report.failed and case.outcome in ("passed", "skipped"):
            exc = call.excinfo.value if call.excinfo else None
            lost = isinstance(exc, (WorkerLost, ImportFailed))
            case.outcome = "failed" if report.when == "call" and not lost else "error"
            case.message = case_message(exc, self.display_name) if exc is not None else "失败"
            case.detail = str(report.longrepr)[-4000:]
        return report

    def pytest_runtest_logfinish(self, nodeid, location):
        case = self.cases[nodeid]
        self.events.send({"type": "case_finished", "id": nodeid, "name": case.name, "hidden": case.hidden,
                          "outcome": case.outcome, "message": as_text(case.message).model_dump(), "hint": case.hint,
                          "detail": case.detail,
                          "duration_s": round(case.duration, 4)})


def _skip_reason(report) -> str:
    """The reason a skip marker gave (pytest keeps (file, line, "Skipped: reason") for a skip)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return ""
