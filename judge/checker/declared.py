"""The `declarations` fixture inside the checker, and the report of what it could not hold to a literal.

A problem's test calls `declarations.check("ns::op", written)` with what the dispatcher reports in the worker
(judge.problem.declarations). An operator no literal in the source declares rejects nothing, but it is never skipped
silently: after the case that asked, the checker sends `computed-declaration` (a Flagged event), which the
judge adds to the report's flags for instructors.
"""

from __future__ import annotations

import pytest

from judge.checker.events import EventWriter, Flagged
from judge.problem.backwards import list_returns
from judge.problem.declarations import Declarations, read


class DeclarationsPlugin:
    def __init__(self, source: str, events: EventWriter):
        self.source, self.events = source, events
        self._found: Declarations | None = None
        self._reported: set[str] = set()

    def declarations_of_the_source(self) -> Declarations:
        if self._found is None:
            self._found = read(self.source)
        return self._found

    @pytest.fixture(scope="session")
    def declarations(self) -> Declarations:
        return self.declarations_of_the_source()

    @pytest.fixture(scope="session")
    def backward_list_lines(self) -> list[int]:
        """The lines where a backward given to register_autograd returns a list (judge.problem.backwards), for a
        problem's probe_causes to name when torch reports the wrong number of gradients."""
        return list_returns(self.source)

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        unread = self._found.unread if self._found is not None else set()
        if unread - self._reported:
            self._reported |= unread
            self.events.send(Flagged(flags=["computed-declaration"]))
