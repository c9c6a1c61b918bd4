"""Observations probes share: what the dispatcher knows about a registered operator, as plain data."""

from __future__ import annotations

import gc
from typing import Any

import torch

# Bound when the probes load, before any submission runs. The functions below also bind the builtins they
# call and run with the garbage collector off, and they read the schema through the getters of torch's own
# schema classes (captured here, not looked up on the classes, which a submission can patch): no code of the
# learner's (a rebound name, a patched property, a finalizer) runs while they observe, so what they report
# is what the dispatcher holds. Nothing here goes through torch.ops: its namespaces and packets are Python
# objects a submission can replace with its own.
_get_schema = torch._C._get_schema
_SCHEMA = torch._C.FunctionSchema.__dict__
_ARGUMENT = torch._C.Argument.__dict__
_schema_name, _schema_arguments, _schema_returns = (_SCHEMA[k].fget for k in ("name", "arguments", "returns"))
_schema_text = _SCHEMA["__str__"]
_argument_name, _argument_type, _argument_alias, _argument_default = (
    _ARGUMENT[k].fget for k in ("name", "type", "alias_info", "default_value")
)
_alias_is_write = torch._C._AliasInfo.__dict__["is_write"].fget  # type: ignore[attr-defined]  # not in torch's stubs
_type_text = torch._C.Type.__dict__["__repr__"]


def _op_exists(qualified: str, _get=_get_schema, _str=str, _type=type) -> bool:
    if _type(qualified) is not _str:
        return False
    try:
        _get(qualified, "")
    except RuntimeError:
        return False
    return True


def _argument(
    arg,
    _str=str,
    _bool=bool,
    _type=type,
    _numbers=(int, float, bool),
    _name=_argument_name,
    _kind=_argument_type,
    _alias=_argument_alias,
    _default=_argument_default,
    _is_write=_alias_is_write,
    _type_text=_type_text,
) -> dict[str, Any]:
    info = _alias(arg)
    default = _default(arg)
    kind = _type(default)
    plain_default = kind is _numbers[0] or kind is _numbers[1] or kind is _numbers[2]
    return {
        "name": _str(_name(arg)),
        "type": _str(_type_text(_kind(arg))),
        "is_write": _bool(info is not None and _is_write(info)),
        "has_alias": info is not None,
        "has_default": default is not None,
        "default": default if plain_default else None,
    }


def _schema(
    qualified: str,
    _exists=_op_exists,
    _get=_get_schema,
    _str=str,
    _list=list,
    _map=map,
    _name=_schema_name,
    _text=_schema_text,
    _arguments=_schema_arguments,
    _returns=_schema_returns,
    _one=_argument,
) -> dict[str, Any] | None:
    if not _exists(qualified):
        return None
    try:
        found = _get(qualified, "")
    except RuntimeError:
        return None
    return {
        "name": _str(_name(found)),
        "text": _str(_text(found)),
        "arguments": _list(_map(_one, _arguments(found))),
        "returns": _list(_map(_one, _returns(found))),
    }


def op_exists(qualified: str, _disable=gc.disable, _enable=gc.enable, _enabled=gc.isenabled, _check=_op_exists) -> bool:
    """Whether `namespace::name` has a default overload registered (asked of the dispatcher)."""
    was_on = _enabled()
    _disable()
    try:
        return _check(qualified)
    finally:
        if was_on:
            _enable()


def schema(
    qualified: str, _disable=gc.disable, _enable=gc.enable, _enabled=gc.isenabled, _read=_schema
) -> dict[str, Any] | None:
    """The schema per argument: name, type, default, and whether its alias annotation writes (`Tensor(a!)`).

    Read from the dispatcher, not from OpOverload._schema, a Python attribute a submission could overwrite.
    """
    was_on = _enabled()
    _disable()
    try:
        return _read(qualified)
    finally:
        if was_on:
            _enable()
