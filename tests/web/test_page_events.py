"""What the page's running line reads from the stream: each public case by name as it starts, and the hidden
cases only once, with no name or number (never which one runs, nor how many are done)."""

from __future__ import annotations

import socket

import httpx
import pytest

from judge.checker import events as checker
from judge.grading.relay import Relay
from judge.report.events import CaseStarted
from tests.web.conftest import FIXTURES
from tests.web.helpers import events, submit

REFERENCE = (FIXTURES / "900-echo" / "solutions" / "reference.py").read_text()


@pytest.mark.slow
def test_case_started_names_public_cases_and_announces_hidden_ones_once(fixture_server):
    with httpx.Client(base_url=fixture_server.url, timeout=60) as client:
        stream = events(client, submit(client, REFERENCE, "submit", problem_id="900"))
    started = [data for _, kind, data in stream if kind == "case_started"]
    assert [s["name"] for s in started if not s["hidden"]] == ["test_add[small]", "test_add[big]"]
    hidden = [s for s in started if s["hidden"]]
    assert hidden == [{"name": "", "hidden": True}]
    kinds = [kind for _, kind, _ in stream]
    assert kinds.index("case_started") > kinds.index("collected") and kinds[-1] == "done"


def test_the_relay_announces_many_hidden_cases_once_and_names_none():
    emitted: list[object] = []
    ours, theirs = socket.socketpair()
    writer = checker.EventWriter(theirs)
    writer.send(checker.CaseStarted(id="p1", name="test_public_one", hidden=False))
    for n in range(3):
        writer.send(checker.CaseStarted(id=f"h{n}", name=f"test_secret_{n}", hidden=True))
    theirs.close()
    Relay(emitted.append).read(ours)
    ours.close()
    started = [e for e in emitted if isinstance(e, CaseStarted)]
    assert started == [CaseStarted(name="test_public_one"), CaseStarted(name="", hidden=True)]
