"""What the web needs from the judge: the JudgeLike protocol (judge.Judge is one; tests hand in fakes)."""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

from judge.problem.folders import Problem
from judge.report.events import EventSink
from judge.report.models import Mode, Report
from judge.report.trying import TryResult
from judge.settings import Settings


class JudgeLike(Protocol):
    settings: Settings  # read for max_source_bytes (the cap on any submission)

    def problems(self) -> list[Problem]: ...

    def problem(self, problem_id: str) -> Problem:
        """Raises judge.errors.JudgeError (404) for an unknown id."""
        ...

    def grade(
        self,
        problem_id: str,
        source_code: str,
        mode: Mode,
        /,
        *,
        on_event: EventSink | None = None,
        display_name: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Report: ...


@runtime_checkable
class TriesInput(Protocol):
    """A judge that also runs Try (judge.Judge does; a test's fake judge may not: the page then offers none)."""

    def try_input(
        self, problem_id: str, source_code: str, input_text: str, /, display_name: str | None = None
    ) -> TryResult:
        """Your own input (judge.grading.trying): JudgeError for a bad request, else a TryResult."""
        ...
