"""The checker's events are typed: each kind crosses the socket as its model, and Relay reads only models."""

from __future__ import annotations

import socket

import pytest
from pydantic import ValidationError

from judge.checker import events as checker
from judge.grading.relay import Relay
from judge.report.events import CaseFinished, CaseStarted, Collected, Event
from judge.report.i18n import Text
from judge.report.models import Outcome

SECRET = "test_secret_hidden_input"


def _stream(*sent: checker.CheckerEvent) -> socket.socket:
    ours, theirs = socket.socketpair()
    writer = checker.EventWriter(ours)
    for event in sent:
        writer.send(event)
    ours.close()
    return theirs


def _case(name: str, hidden: bool, **fields: object) -> checker.CaseEnded:
    return checker.CaseEnded(id=f"t.py::{name}", name=name, hidden=hidden, outcome=Outcome.failed, **fields)


def test_every_kind_crosses_the_socket_as_its_model():
    sent: list[checker.CheckerEvent] = [
        checker.Collected(cases=[checker.CollectedCase(id="t.py::a", name="a", hidden=False, tier="gpu")]),
        checker.ImportFailed(error=checker.ImportProblem(type="NameError", line=3), message=Text(zh="中", en="en")),
        checker.CollectError(detail="bad \udcff line"),  # a lone surrogate is replaced, not fatal
        checker.CaseStarted(id="t.py::a", name="a", hidden=False),
        _case("a", False, tampered=True, line=7),
        checker.Finished(exit_code=1),
    ]
    got = list(checker.read_events(_stream(*sent)))
    assert [type(e) for e in got] == [type(e) for e in sent]
    assert got[0] == sent[0] and got[1] == sent[1] and got[4] == sent[4] and got[5] == sent[5]
    assert isinstance(got[2], checker.CollectError) and got[2].detail == "bad ? line"


@pytest.mark.parametrize(
    "line",
    [b'{"type": "case_done", "id": "x"}', b'{"type": "finished"}', b'{"type": "collected", "cases": [{"id": 1}]}'],
)
def test_a_line_that_is_no_event_is_refused(line: bytes):
    ours, theirs = socket.socketpair()
    ours.sendall(line + b"\n")
    ours.close()
    with pytest.raises(ValidationError):
        list(checker.read_events(theirs))


def test_relay_carries_the_facts_and_tells_only_public_names_as_cases_start():
    emitted: list[Event] = []
    log = Relay(emitted.append).read(
        _stream(
            checker.Collected(
                cases=[
                    checker.CollectedCase(id="t.py::shown", name="shown", hidden=False),
                    checker.CollectedCase(id="t.py::" + SECRET, name=SECRET, hidden=True),
                ]
            ),
            checker.CaseStarted(id="t.py::shown", name="shown", hidden=False),
            _case("shown", False, line=12, message=Text.same("boom")),
            checker.CaseStarted(id="t.py::" + SECRET, name=SECRET, hidden=True),
            _case(SECRET, True, tampered=True, message=Text.same(SECRET)),
            checker.Finished(exit_code=1),
        )
    )
    assert log.exit_code == 1 and [c.id for c in log.collected] == ["t.py::shown", "t.py::" + SECRET]
    shown, hidden = log.finished["t.py::shown"], log.finished["t.py::" + SECRET]
    assert (shown.line, shown.tampered, hidden.tampered) == (12, False, True)
    assert isinstance(emitted[0], Collected) and emitted[0].total == 2
    started = [e for e in emitted if isinstance(e, CaseStarted)]
    assert started and started[0].name == "shown"
    assert SECRET not in "".join(e.model_dump_json() for e in emitted)
    finished = [e for e in emitted if isinstance(e, CaseFinished)]
    assert [f.name for f in finished] == ["shown", "hidden 1"]
