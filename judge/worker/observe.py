"""Observations probes share: what the dispatcher knows about a registered operator, as plain data."""

from __future__ import annotations

import gc

import torch

# Bound when the probes load, before any submission runs. The functions below also bind the builtins they
# call and run with the garbage collector off, so no code of the learner's (a rebound name, a finalizer) runs
# while they observe: what they report is what the dispatcher holds.
_get_schema = torch._C._get_schema
_ops = torch.ops


def op_exists(qualified: str, _disable=gc.disable, _enable=gc.enable, _enabled=gc.isenabled) -> bool:
    """Whether `namespace::name` has a default overload registered."""
    was_on = _enabled()
    _disable()
    try:
        return _op_exists(qualified)
    finally:
        if was_on:
            _enable()


def _op_exists(qualified: str, _getattr=getattr, _str=str, _type=type) -> bool:
    if _type(qualified) is not _str:
        return False
    namespace, name = qualified.split("::")
    try:
        _getattr(_getattr(_ops, namespace), name).default
    except (AttributeError, RuntimeError):
        return False
    return True


def schema(qualified: str, _disable=gc.disable, _enable=gc.enable, _enabled=gc.isenabled) -> dict | None:
    """The schema per argument: name, type, default, and whether its alias annotation writes (`Tensor(a!)`).

    Read from the dispatcher, not from OpOverload._schema, a Python attribute a submission could overwrite.
    """
    was_on = _enabled()
    _disable()
    try:
        return _schema(qualified)
    finally:
        if was_on:
            _enable()


def _schema(qualified: str, _exists=_op_exists, _get=_get_schema, _str=str) -> dict | None:
    if not _exists(qualified):
        return None
    try:
        found = _get(qualified, "")
    except RuntimeError:
        return None
    return {"name": _str(found.name), "text": _str(found),
            "arguments": [_argument(a) for a in found.arguments], "returns": [_argument(r) for r in found.returns]}


def _argument(arg, _str=str, _bool=bool, _type=type, _numbers=(int, float, bool)) -> dict:
    info = arg.alias_info
    default = arg.default_value
    kind = _type(default)
    plain_default = kind is _numbers[0] or kind is _numbers[1] or kind is _numbers[2]
    return {"name": _str(arg.name), "type": _str(arg.type), "is_write": _bool(info is not None and info.is_write),
            "has_alias": info is not None, "has_default": default is not None,
            "default": default if plain_default else None}
