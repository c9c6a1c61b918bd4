"""The probe protocol between the checker and the learner's worker: every message's shape, named once.

Frames carry plain dicts (judge.wire.channel; judge.wire.replies checks them). These TypedDicts only name their shapes
for the type checker: the worker imports this module under TYPE_CHECKING, so naming them costs it nothing
at run time, and nothing here may run code while learner code is loaded.

    handshake  worker -> checker, once, after the learner's file imported: ImportOk | ImportRaised | TamperedReply
    request    checker -> worker: ProbeRequest
    reply      worker -> checker, one per request: OkReply | RaisedReply | MemoryReply | TraceReply | InternalReply |
               TamperedReply
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class ProbeRequest(TypedDict):
    """Call probes.<probe>(solution, *args, **kwargs) in the worker; with trace, under judge.worker.optrace."""

    probe: str
    args: list[Any]
    kwargs: dict[str, Any]
    trace: NotRequired[bool]


class Raised(TypedDict):
    """What the learner's code raised, as the worker describes it (judge.worker.learner.describe)."""

    type: str  # the exception's class name
    message: str
    learner_line: int | None  # the learner's line it points at


class OkReply(TypedDict):
    ok: Any  # the probe's result: plain data and CPU tensors (judge.wire.replies)


class RaisedReply(TypedDict):
    raised: Raised


class MemoryReply(TypedDict):
    memory: Raised  # an allocation the job's limit refused, and the learner's line that asked; the worker then ends


class TracedOp(TypedDict):
    op: str  # aten::index_copy_
    args: list[str]  # the operator's inputs by name, `·` for a tensor made inside it, numbers as written
    writes: list[str]  # the operator's inputs this op writes


class Trace(TypedDict):
    ops: list[TracedOp]
    dropped: int  # ops past the cap, counted only
    raised: str | None  # the type of what the call raised
    entered: bool  # the exercise's operator was called


class TraceReply(TypedDict):
    trace: Trace  # the answer to a request with trace: feedback, never a verdict


class InternalReply(TypedDict):
    internal: str  # the problem's own fault (no probe of that name): not the learner's


class TamperedReply(TypedDict):
    tampered: Literal[True]  # the guard found the judge's own code changed: no reply is believed


# "import" is a keyword: these two use the functional form.
ImportOk = TypedDict("ImportOk", {"import": Literal["ok"], "fence": str})  # fence: the seccomp fence's status
ImportRaised = TypedDict(
    "ImportRaised", {"import": Literal["error"], "type": str, "message": str, "learner_line": int | None}
)
# The checker's own stand-in when no handshake came back (it never crosses the channel).
ImportLost = TypedDict("ImportLost", {"import": Literal["lost"], "message": str})

Handshake = ImportOk | ImportRaised | TamperedReply
Reply = OkReply | RaisedReply | MemoryReply | TraceReply | InternalReply | TamperedReply
