"""Trace pass entry point (forked from the checker zygote): probe calls of failing cases, traced in one worker.

The judge runs it twice, once with a worker on the learner's file and once with a worker on the reference
solution (judge.grading.tracing), so each worker only ever holds its own code; it compares the two
(judge.report.optrace).
"""

from __future__ import annotations

import base64
import socket
from typing import Any

from judge.checker.events import EventWriter, Finished, Traced
from judge.checker.remote import Remote
from judge.wire.channel import HEADER, Channel, ChannelClosed, decode


def main(fds: list[int], payload: dict[str, Any]) -> None:
    remote = Remote(Channel(socket.socket(fileno=fds[0])), deadline=float(payload["deadline"]))
    events = EventWriter(socket.socket(fileno=fds[1]))
    ready = remote.handshake()["import"] == "ok"
    for call in payload["calls"] if ready else []:
        try:
            data = decode(base64.b64decode(call["frame"])[HEADER.size :])
        except (ChannelClosed, ValueError):
            continue
        trace = remote.trace(call["probe"], list(data["args"]), dict(data["kwargs"]))
        if trace is not None:
            events.send(Traced(id=call["id"], probe=call["probe"], trace=trace))
    remote.channel.close()
    events.send(Finished(exit_code=0))
