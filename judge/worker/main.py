"""Worker entry point: load probes, import the submission, then serve probe calls until the checker hangs up."""

from __future__ import annotations

import os
import socket
import sys

from judge.channel import Channel, ChannelClosed
from judge.worker.learner import describe, is_out_of_memory, load_module
from sandbox.base import EXIT_MEMORY


def serve(fds: list[int], payload: dict) -> None:
    call = _call  # bound before the submission runs: replacing the module's _call later changes nothing
    channel = Channel(socket.socket(fileno=fds[0]))
    display = payload["display_name"]
    # Probes load first, so the names they bind are torch's own, not ones the submission patched;
    # the table of probe functions is taken before the submission runs and kept out of sys.modules.
    probes = probe_table(load_module("probes", payload["probes_path"]))
    sys.modules.pop("probes", None)
    try:
        solution = load_module("solution", payload["solution_path"], display)
    except Exception as exc:  # noqa: BLE001 - any failure while importing is the learner's compile error
        if is_out_of_memory(exc):
            os._exit(EXIT_MEMORY)
        channel.send({"import": "error", **describe(exc, display)})
        return
    channel.send({"import": "ok"})
    while True:
        try:
            request = channel.recv()
        except ChannelClosed:
            return
        reply = call(probes, solution, request, display)
        try:
            channel.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable or oversized result
            channel.send({"raised": {"type": "ReplyError", "message": f"the result could not be sent back: {exc}"[:500],
                                     "learner_line": None}})


def probe_table(module) -> dict:
    """Public functions defined in the probes module, captured once."""
    return {name: fn for name, fn in vars(module).items()
            if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", None) == module.__name__}


def _call(probes: dict, solution, request: dict, display: str) -> dict:
    probe = probes.get(request["probe"])
    if probe is None:
        return {"internal": f"no probe named {request['probe']!r}"}
    try:
        return {"ok": probe(solution, *request["args"], **request["kwargs"])}
    except Exception as exc:  # noqa: BLE001 - the learner's exception is an observation, not a crash
        if is_out_of_memory(exc):
            os._exit(EXIT_MEMORY)
        return {"raised": describe(exc, display)}
