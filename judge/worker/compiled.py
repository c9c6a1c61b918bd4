"""The judge's own torch.compile backend: each graph Dynamo compiles is reported to the checker as it is compiled.

A probe that asks how many graphs Dynamo made used to keep a counter in the worker (torch._dynamo.testing's
CompileCounterWithBackend) and send back its `frame_count`: an object learner code could reach (swap the class's
`__call__` for one call, keep the counter, set its count afterwards). Here nothing is counted in the worker. The
backend a probe passes to torch.compile (`reporting(inner)`) hands each graph's node targets to `_note`, which raises
the NOTE audit event; the worker's guard sends them on the channel at once, as a note the checker collects for the
probe call in flight (judge.checker.remote: `Remote.notes`). The guard takes a note only from `_note` called by this
backend, called by Dynamo itself, with no learner code on the stack, so a submission can neither unsend a graph nor
report one Dynamo did not compile through this backend. The checker counts.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import torch
from torch._dynamo.backends.registry import lookup_backend

NOTE = "judge.worker.note"
MAX_TARGETS = 2000  # node targets reported per graph (a graph is cut there; the count stays right)
_OpOverload = torch._ops.OpOverload
_OpOverloadPacket = torch._ops.OpOverloadPacket
_op_text: dict[int, Callable[[Any], str]] = {
    id(_OpOverload): _OpOverload.__str__,
    id(_OpOverloadPacket): _OpOverloadPacket.__str__,
}
_type_name = type.__dict__["__name__"].__get__
_name_of: dict[int, Callable[[Any], str]] = {
    id(types.FunctionType): types.FunctionType.__dict__["__qualname__"].__get__,
    id(types.BuiltinFunctionType): types.BuiltinFunctionType.__dict__["__qualname__"].__get__,
}


def _target(target: Any, _type=type, _str=str, _id=id, _type_name=_type_name) -> str:
    """A node's target as text, through torch's and CPython's own accessors (no method of the object runs)."""
    kind = _type(target)
    if kind is _str:
        return target
    text = _op_text.get(_id(kind))
    if text is not None:
        return _str(text(target))
    name = _name_of.get(_id(kind))
    return _str(name(target)) if name is not None else f"<{_type_name(kind)}>"


def _note(payload: dict[str, Any], _audit=sys.audit, _event=NOTE) -> None:
    """Hand a note to the guard (judge.worker.guard sends it to the checker now)."""
    _audit(_event, payload)


def reporting(inner: str):
    """A fresh backend for one torch.compile: reports each graph it is given, then compiles it with `inner`."""
    compile_with = lookup_backend(inner)

    def backend(gm, example_inputs, _note=_note, _target=_target, _list=list, _len=len, _max=MAX_TARGETS):
        nodes = _list(gm.graph.nodes)
        targets = [_target(node.target) for node in nodes[:_max]]
        _note({"graph": {"targets": targets, "nodes": _len(nodes)}})
        return compile_with(gm, example_inputs)

    return backend


BACKEND_CODE = reporting("eager").__code__  # every backend reporting() makes runs this code (the guard checks it)
NOTE_CODE = _note.__code__
