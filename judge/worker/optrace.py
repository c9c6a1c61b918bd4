"""The op trace: the aten ops an exercise's custom operator ran inside one probe call, recorded in the worker.

Feedback only, never a verdict: the trace is what the learner's own process saw, so a submission could shape
its own trace (and nothing else). The checker asks for it on a failing public case; the judge compares it
with the reference's, recorded the same way in a worker of its own (judge.report.optrace).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

MAX_OPS = 64  # recorded ops per call; more are counted, not kept
_FRAMEWORK = ("aten", "prim", "prims")
_BACKENDS = {"cpu": torch._C.DispatchKey.CPU, "cuda": torch._C.DispatchKey.CUDA}


MAX_ARG = 40  # characters of one argument's description


def op_name(func: Any) -> str:
    """`aten::index_copy_`, `aten::mean.dim`: the schema's name, the overload only when it is not the default."""
    return str(func.name())


def _tensors(values: Any) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, torch.Tensor))
    return found


def _storage(t: torch.Tensor) -> int | None:
    try:
        return int(t.untyped_storage().data_ptr())
    except (RuntimeError, NotImplementedError):  # a tensor without storage (a subclass, a fake)
        return None


def _view(t: torch.Tensor) -> tuple[Any, ...] | None:
    """Which elements a tensor is: its storage, offset, shape and strides (two views of one buffer differ)."""
    address = _storage(t)
    return None if address is None else (address, t.storage_offset(), tuple(t.shape), tuple(t.stride()))


class OpRecorder(TorchDispatchMode):
    """Records each aten op run inside a custom operator (not the probe's own ops around it), naming the
    operator's inputs it reads and writes; ops inside run under this mode again, so nested calls are seen."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[dict[str, Any]] = []
        self.dropped = 0
        self.depth = 0
        self.entered = False  # the exercise's operator was called
        self.names: dict[tuple[Any, ...], str] = {}  # a view (_view) -> the custom operator's argument name
        self.buffers: dict[int, str] = {}  # storage address -> the first argument name using that storage

    def _record(self, entry: dict[str, Any]) -> None:
        if len(self.ops) < MAX_OPS:
            self.ops.append(entry)
        else:
            self.dropped += 1

    def _arg(self, value: Any) -> str:
        """An argument as the trace shows it: an input of the operator by its name, any other tensor as `·`
        (made inside the operator), a number or a short list as written."""
        if isinstance(value, torch.Tensor):
            return self._name(value) or "·"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(self._arg(v) for v in value) + "]"
        return repr(value)[:MAX_ARG] if isinstance(value, (int, bool, str, type(None), torch.dtype)) else "…"

    def _name(self, t: torch.Tensor) -> str | None:
        """The operator's input this tensor is, or a view of (`k_cache[view]`), or None (made inside)."""
        name = self.names.get(_view(t) or ())
        if name is not None:
            return name
        owner = self.buffers.get(_storage(t) or -1)
        return f"{owner}[view]" if owner is not None else None

    def _named(self, tensors: list[torch.Tensor]) -> list[str]:
        seen: list[str] = []
        for t in tensors:
            name = self._name(t)
            if name is not None and name not in seen:
                seen.append(name)
        return seen

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        custom = func.namespace not in _FRAMEWORK
        if custom and self.depth == 0:
            return self._enter(func, args, kwargs)
        if self.depth > 0:
            self._record(self._entry(func, args, kwargs))
        if custom:  # a custom operator called inside one: its own ops are recorded too
            return self._enter(func, args, kwargs, named=False)
        return func(*args, **kwargs)

    def _entry(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        written: list[torch.Tensor] = []
        for i, arg in enumerate(func._schema.arguments):
            value = args[i] if i < len(args) else kwargs.get(arg.name)
            if arg.alias_info is not None and arg.alias_info.is_write and value is not None:
                written.extend(_tensors([value]))
        shown = [self._arg(a) for a in args] + [f"{k}={self._arg(v)}" for k, v in kwargs.items()]
        return {"op": op_name(func), "args": [a[:MAX_ARG] for a in shown], "writes": self._named(written)}

    def _enter(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], named: bool = True) -> Any:
        """Run the custom operator's kernel with this mode active again (the dispatcher pops a mode while it
        handles an op): redispatching to the backend's key, past the Python key that called this mode."""
        self.entered = self.entered or named
        tensors = _tensors([*args, *kwargs.values()])
        backend = _BACKENDS.get(tensors[0].device.type) if tensors else None
        if backend is None:
            return func(*args, **kwargs)
        if named:
            for i, arg in enumerate(func._schema.arguments):
                value = args[i] if i < len(args) else kwargs.get(arg.name)
                for t in _tensors([value]):
                    view = _view(t)
                    if view is not None:
                        self.names.setdefault(view, arg.name)
                        self.buffers.setdefault(view[0], arg.name)
        self.depth += 1
        try:
            with self:
                return func.redispatch(torch._C.DispatchKeySet(backend), *args, **kwargs)
        finally:
            self.depth -= 1
            if named:
                self.names, self.buffers = {}, {}


def traced(call: Callable[[], Any]) -> dict[str, Any]:
    """Run `call` under an OpRecorder: the ops, how many were not kept, and what the call raised (by type)."""
    recorder = OpRecorder()
    raised = None
    try:
        with recorder:
            call()
    except Exception as exc:  # noqa: BLE001 - what the learner's code raised is part of its trace
        raised = type(exc).__name__
    return {"ops": recorder.ops, "dropped": recorder.dropped, "raised": raised, "entered": recorder.entered}
