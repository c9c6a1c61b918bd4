"""The `remote` object tests use to call probes in the learner's worker."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from judge.checker.errors import LearnerError, OutOfMemory, Refused, Tampered, WorkerLost
from judge.report.catalog import say
from judge.report.optrace import Trace
from judge.report.textsafe import valid
from judge.wire.channel import Channel, ChannelClosed
from judge.wire.protocol import ImportLost, ImportOk, ImportRaised, ProbeRequest
from judge.wire.replies import ReplyRejected, check_reply

TAMPERED = "the worker's guard found the judge's own code changed"
SUBCLASS_KEY = "tensor_subclass"  # judge.worker.tensors.SUBCLASS_KEY (the checker imports nothing of the worker's)


class ImportFailed(Exception):
    """The learner's file did not import; every case is an error (compile_error)."""


class Remote:
    def __init__(self, channel: Channel, deadline: float):
        self.channel = channel
        self.deadline = deadline
        self.lost: str | None = None
        self.import_error: ImportRaised | None = None
        self.tampered = False
        # The notes the worker's guard sent while the last probe call ran (judge.worker.compiled: each graph the
        # judge's own backend compiled, as it compiled it): data the checker owns, which no reply can take back.
        self.notes: list[dict[str, Any]] = []

    def handshake(self) -> ImportOk | ImportRaised | ImportLost:
        """Wait for the worker's import report; returns it (also stored on failure)."""
        try:
            hello = check_reply(self.channel.recv(self.deadline))
        except (ChannelClosed, ReplyRejected) as exc:
            self.lost = f"worker ended before reporting its import: {exc}"
            return {"import": "lost", "message": self.lost}
        if type(hello) is dict and "tampered" in hello:
            self.lost, self.tampered = TAMPERED, True
            return {"import": "lost", "message": self.lost}
        if not isinstance(hello, dict) or hello.get("import") not in ("ok", "error"):
            self.lost = "worker sent a malformed import report"
            return {"import": "lost", "message": self.lost}
        if hello["import"] == "ok":
            return {"import": "ok", "fence": str(hello.get("fence", ""))}
        line = hello.get("learner_line")
        self.import_error = {
            "import": "error",
            "type": valid(str(hello.get("type", "Exception")))[:100],
            "message": valid(str(hello.get("message", "")))[:2000],
            "learner_line": line if type(line) is int else None,
        }
        return self.import_error

    def call(self, probe: str, *args: Any, **kwargs: Any) -> Any:
        """Run probes.<probe>(solution, *args, **kwargs) in the worker and return its checked result."""
        if self.import_error is not None:
            raise ImportFailed(self.import_error.get("message", ""))
        if self.lost is not None:
            raise (Tampered if self.tampered else WorkerLost)(self.lost)
        try:
            request: ProbeRequest = {"probe": probe, "args": list(args), "kwargs": kwargs}
            self.notes = []
            self.channel.send(request)
            reply = self._reply()
        except (ChannelClosed, OSError) as exc:
            self.lost = str(exc)
            raise WorkerLost(self.lost) from None
        except ReplyRejected as exc:
            self.lost = f"worker reply rejected: {exc}"
            raise WorkerLost(self.lost) from None
        return self._unwrap(reply)

    def _reply(self, _limit: int = 10_000) -> Any:
        """The probe's reply, after the notes sent while it ran (at most `_limit` of them: a flood is a lost worker)."""
        for _ in range(_limit):
            frame = check_reply(self.channel.recv(self.deadline))
            if type(frame) is dict and len(frame) == 1 and type(frame.get("note")) is dict:
                self.notes.append(frame["note"])
                continue
            return frame
        raise ReplyRejected(f"more than {_limit} notes in one probe call")

    def graphs(self) -> list[list[str]]:
        """The graphs Dynamo compiled through the judge's backend during the last call: each one's node targets."""
        found = []
        for note in self.notes:
            graph = note.get("graph")
            if type(graph) is dict and type(graph.get("targets")) is list:
                found.append([str(t) for t in graph["targets"]])
        return found

    def trace(self, probe: str, args: list[Any], kwargs: dict[str, Any]) -> Trace | None:
        """The op trace of probes.<probe>(solution, *args, **kwargs) (judge.worker.optrace), or None when the
        worker cannot give one. Feedback only: a malformed trace is dropped, never held against the verdict."""
        if self.import_error is not None or self.lost is not None:
            return None
        try:
            request: ProbeRequest = {"probe": probe, "args": args, "kwargs": kwargs, "trace": True}
            self.channel.send(request)
            reply = self._reply()
        except (ChannelClosed, OSError, ReplyRejected, ValueError) as exc:
            self.lost = f"worker lost while tracing: {exc}"
            return None
        if type(reply) is not dict or set(reply) != {"trace"}:
            return None
        try:
            return Trace.model_validate(reply["trace"])
        except ValidationError:
            return None

    def _unwrap(self, reply: Any) -> Any:
        if type(reply) is dict and len(reply) == 1:
            if "ok" in reply:
                refused = subclass_in(reply["ok"])
                if refused is not None:
                    raise Refused(say("case.tensor_subclass", name=valid(refused)[:200]))
                return reply["ok"]
            raised = reply.get("raised")
            if type(raised) is dict:
                line = raised.get("learner_line")
                raise LearnerError(
                    valid(str(raised.get("type", "Exception")))[:100],
                    valid(str(raised.get("message", "")))[:2000],
                    line if type(line) is int else None,
                )
            memory = reply.get("memory")
            if type(memory) is dict:  # the worker ends after this reply: every later call finds it lost
                line = memory.get("learner_line")
                said = valid(str(memory.get("message", "")))[:500]
                self.lost = f"out of memory: {said}"
                raise OutOfMemory(said, line if type(line) is int else None)
            if "internal" in reply:
                raise RuntimeError(f"probe problem: {reply['internal']}")
            if "tampered" in reply:
                self.lost, self.tampered = TAMPERED, True
                raise Tampered(self.lost)
        self.lost = "worker sent a reply that is not {'ok': ...} or {'raised': ...}"
        raise WorkerLost(self.lost)


def subclass_in(data: Any) -> str | None:
    """The class name of the first tensor in a (checked, plain) reply that the worker refused to read
    (judge.worker.tensors: a subclass of a tensor class), or None."""
    stack = [data]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            name = item.get(SUBCLASS_KEY)
            if type(name) is str:
                return name
            stack.extend(item.values())
        elif type(item) in (list, tuple):
            stack.extend(item)
    return None
