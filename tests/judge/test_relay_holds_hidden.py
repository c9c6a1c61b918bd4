"""Relay: every event about a hidden case is held until the hidden pass ends and released together; public
cases stream as they finish (a kernel that slept in proportion to a hidden input was read off the arrival
time of each hidden case's event)."""

from __future__ import annotations

import socket
import threading

from judge.checker import events as checker
from judge.grading.relay import Relay

CASES = [("pub1", False), ("pub2", False), ("h1", True), ("h2", True), ("h3", True)]


def test_hidden_case_events_leave_together_after_the_hidden_pass():
    reader, writer = socket.socketpair()
    out = checker.EventWriter(writer)
    sent = [0]  # checker events written so far, read by the sink as each relayed event arrives
    emitted: list[tuple[str, bool, int]] = []
    step = threading.Event()

    def sink(event):
        emitted.append((event.type, bool(getattr(event, "hidden", False)), sent[0]))
        step.set()

    def write(event):
        sent[0] += 1
        out.send(event)

    def checker_side():
        write(checker.Collected(cases=[checker.CollectedCase(id=i, name=i, hidden=h) for i, h in CASES]))
        for case_id, hidden in CASES:
            write(checker.CaseStarted(id=case_id, name=case_id, hidden=hidden))
            step.clear()
            write(checker.CaseEnded(id=case_id, name=case_id, hidden=hidden, outcome="passed"))
            step.wait(0.5)  # a relay that passes the event on now is seen doing so before the next case is sent
        write(checker.Finished(exit_code=0))
        writer.close()

    thread = threading.Thread(target=checker_side)
    thread.start()
    log = Relay(sink).read(reader)
    thread.join()
    reader.close()
    assert len(log.finished) == len(CASES)
    finished = [(hidden, seen) for kind, hidden, seen in emitted if kind == "case_finished"]
    assert [hidden for hidden, _ in finished] == [False, False, True, True, True]
    public_seen = [seen for hidden, seen in finished if not hidden]
    hidden_seen = [seen for hidden, seen in finished if hidden]
    assert public_seen[0] < public_seen[1] < hidden_seen[0], "public cases are relayed as they finish"
    total = 1 + 2 * len(CASES) + 1
    assert hidden_seen == [total] * 3, f"hidden events left before the hidden pass ended: {hidden_seen} of {total}"
    started = [hidden for kind, hidden, _ in emitted if kind == "case_started"]
    assert started == [False, False, True], "hidden cases are announced once, as a phase"
