"""Check what came back from the worker before any test looks at it: plain data and sane CPU tensors only."""

from __future__ import annotations

from typing import TypeVar

import torch

MAX_NUMEL = 1 << 24
MAX_STORAGE_BYTES = 64 << 20
MAX_ITEMS = 100_000
MAX_DEPTH = 16
MAX_STR = 1 << 20
SCALARS = (type(None), bool, int, float, str, torch.dtype)
T = TypeVar("T")


class ReplyRejected(Exception):
    """The worker's reply is not something a probe may return."""


def check_reply(value: T) -> T:
    """Return value unchanged if it is plain data; raise ReplyRejected otherwise.

    The worker runs this too, before a reply is serialised, where the learner may have rebound builtins:
    so builtins are bound at definition and types are compared by identity (`in` and `==` could call a
    metaclass the learner wrote)."""
    budget = [MAX_ITEMS]
    _check(value, 0, budget)
    return value


def _one_of(kind, kinds) -> bool:
    for candidate in kinds:
        if candidate is kind:
            return True
    return False


def _check(
    value,
    depth: int,
    budget: list[int],
    _type=type,
    _len=len,
    _str=str,
    _dict=dict,
    _tensor=torch.Tensor,
    _sequences=(list, tuple, torch.Size),
) -> None:
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise ReplyRejected("reply is nested too deeply or has too many items")
    kind = _type(value)
    if _one_of(kind, SCALARS):
        if kind is _str and _len(value) > MAX_STR:
            raise ReplyRejected("reply holds an over-long string")
        return
    if kind is _tensor:
        return _check_tensor(value)
    if _one_of(kind, _sequences):
        for item in value:
            _check(item, depth + 1, budget)
        return
    if kind is _dict:
        for key, item in value.items():
            if _type(key) is not _str:
                raise ReplyRejected("reply has a dict key that is not a string")
            _check(item, depth + 1, budget)
        return
    raise ReplyRejected(f"reply holds a {kind.__name__}, which probes never return")


def _check_tensor(t: torch.Tensor, _sum=sum, _abs=abs, _zip=zip, _strided=torch.strided) -> None:
    if t.device.type != "cpu" or t.layout is not _strided or t.is_quantized:
        raise ReplyRejected(f"reply holds a tensor on {t.device} with layout {t.layout}")
    if t.numel() > MAX_NUMEL:
        raise ReplyRejected(f"reply holds a tensor with {t.numel()} elements")
    storage = t.untyped_storage().nbytes()
    if storage > MAX_STORAGE_BYTES:
        raise ReplyRejected("reply holds an oversized tensor storage")
    if t.numel():
        # The furthest element a view can reach must lie inside its storage (no 10^12-element broadcasts).
        extent = t.storage_offset() + _sum((s - 1) * _abs(st) for s, st in _zip(t.shape, t.stride())) + 1
        if extent * t.element_size() > storage:
            raise ReplyRejected("reply holds a tensor view that reaches past its storage")
