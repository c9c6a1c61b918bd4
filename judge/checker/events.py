"""Events from the checker to the judge: one JSON object per line over a stream socket, typed as pydantic models.

The checker is the judge's own code, but it runs in a sandbox beside the learner's worker, so the judge
validates every line against this union before any of it reaches a report.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, Field, TypeAdapter

from judge.report.i18n import Text
from judge.report.models import Outcome
from judge.report.optrace import Trace

T = TypeVar("T")
MAX_TRACE_FRAME = 256 << 10  # a traced call's inputs: exercise-sized tensors; a larger call is not traced


class CollectedCase(BaseModel):
    """One test case as collected, in collection order."""

    id: str = Field(description="pytest's node id: the key of the case's other events.")
    name: str
    hidden: bool
    tier: str = "cpu"
    weight: float = Field(1.0, ge=0, description="Its share of the score: @pytest.mark.weight(n), default 1.")


class Collected(BaseModel):
    type: Literal["collected"] = "collected"
    cases: list[CollectedCase]
    among: int = Field(0, description="Cases of the pass across all its shards, when a Run is split (checker.shards).")


class ImportProblem(BaseModel):
    """Why the learner's file is not usable: it raised while importing, or the handshake never came back."""

    lost: bool = Field(False, description="No handshake: a limit was hit or the file exited while importing.")
    type: str = Field("", description="The exception's class name (an import that raised).")
    message: str = ""
    line: int | None = Field(None, description="The learner's line the exception points at.")


class ImportFailed(BaseModel):
    type: Literal["import_error"] = "import_error"
    error: ImportProblem
    message: Text = Field(default_factory=Text, description="The checker's headline; empty when lost.")


class CollectError(BaseModel):
    type: Literal["collect_error"] = "collect_error"
    detail: str


class CaseStarted(BaseModel):
    type: Literal["case_started"] = "case_started"
    id: str
    name: str
    hidden: bool


class TraceRequest(BaseModel):
    """The probe call of a failing public case, kept so the judge can trace it again (judge.grading.tracing)."""

    probe: str = Field(max_length=200)
    frame: str = Field(max_length=MAX_TRACE_FRAME * 4 // 3 + 8, description="base64 of the call's channel frame.")


class CaseEnded(BaseModel):
    type: Literal["case_finished"] = "case_finished"
    id: str
    name: str
    hidden: bool
    outcome: Outcome
    message: Text = Field(default_factory=Text)
    hint: Text = Field(default_factory=Text)
    detail: str = ""
    duration_s: float = 0.0
    tampered: bool = Field(False, description="The worker's guard found the judge's own code changed.")
    line: int | None = Field(None, description="The learner's line the case's exception points at.")
    trace_request: TraceRequest | None = Field(None, description="A failing public case's probe call (op trace).")


class Traced(BaseModel):
    """The op trace of one case's probe call, from a trace pass (judge.checker.tracing)."""

    type: Literal["traced"] = "traced"
    id: str
    probe: str
    trace: Trace


class Flagged(BaseModel):
    """Constructs for instructors the checker saw while judging (never a verdict, never sent to the learner):
    computed-declaration: the dispatcher holds an operator of the exercise that no literal in the source
    declares (judge.problem.declarations), so the floor had nothing to hold it to."""

    type: Literal["flagged"] = "flagged"
    flags: list[Literal["computed-declaration"]]


class Finished(BaseModel):
    type: Literal["finished"] = "finished"
    exit_code: int


CheckerEvent = Annotated[
    Collected | ImportFailed | CollectError | CaseStarted | CaseEnded | Traced | Flagged | Finished,
    Field(discriminator="type"),
]
CHECKER_EVENT: TypeAdapter[CheckerEvent] = TypeAdapter(CheckerEvent)


class EventWriter:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def send(self, event: CheckerEvent) -> None:
        # json.dumps, then errors="replace": a lone surrogate that slipped through must not break the checker's
        # report (pydantic's own JSON encoder refuses one)
        line = json.dumps(event.model_dump(mode="json"), ensure_ascii=False).encode("utf-8", "replace")
        self.sock.sendall(line + b"\n")


def read_events(sock: socket.socket, max_line: int = 1 << 20) -> Iterator[CheckerEvent]:
    """Yield events until the checker closes its end; a line over max_line ends the stream."""
    return read_lines(sock, CHECKER_EVENT, max_line)


def read_lines(sock: socket.socket, adapter: TypeAdapter[T], max_line: int = 1 << 20) -> Iterator[T]:
    """Yield one `adapter`-validated object per line until the peer closes its end; a line over max_line ends the
    stream (a Try's checkers send events of their own: judge.report.trying)."""
    buf = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield adapter.validate_json(line)
        if len(buf) > max_line:
            raise ValueError("checker event line too long")
