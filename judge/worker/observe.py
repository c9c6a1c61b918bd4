"""Observations probes share: what the dispatcher knows about a registered operator, as plain data."""

from __future__ import annotations

import torch

# Bound when the probes load, before any submission runs.
_get_schema = torch._C._get_schema
_ops = torch.ops


def op_exists(qualified: str) -> bool:
    """Whether `namespace::name` has a default overload registered."""
    namespace, name = qualified.split("::")
    try:
        getattr(getattr(_ops, namespace), name).default
    except (AttributeError, RuntimeError):
        return False
    return True


def schema(qualified: str) -> dict | None:
    """The schema per argument: name, type, default, and whether its alias annotation writes (`Tensor(a!)`).

    Read from the dispatcher, not from OpOverload._schema, a Python attribute a submission could overwrite.
    """
    if not op_exists(qualified):
        return None
    try:
        found = _get_schema(qualified, "")
    except RuntimeError:
        return None
    return {"name": found.name, "text": str(found),
            "arguments": [_argument(a) for a in found.arguments], "returns": [_argument(r) for r in found.returns]}


def _argument(arg) -> dict:
    info = arg.alias_info
    default = arg.default_value
    return {"name": arg.name, "type": str(arg.type), "is_write": bool(info is not None and info.is_write),
            "has_alias": info is not None, "has_default": default is not None,
            "default": default if isinstance(default, (int, float)) else None}
