"""Probes for exercise 104: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. It reaches the operator only through
``torch.ops.ex104.free_slots`` (never through the learner's Python objects), does the work that
needs it (eager call, meta / fake tensors, what opcheck looks at, torch.compile) and returns
plain observations. The checker decides pass or fail, opcheck's tests included; nothing here
compares or knows an expected value.

Probes are not secret: reading them shows exactly how your operator is exercised.
"""

import torch
from torch._dynamo import reset as _dynamo_reset
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv as _ShapeEnv
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols as _free_unbacked_symbols

from judge.worker import tensors as _t
from judge.worker.observe import op_exists as _op_exists
from judge.worker.observe import schema as _schema_of
from judge.worker.opobserve import opcheck_data as _opcheck_data

# Bound at import time, before the learner's module is imported, so that a submission which
# replaces these functions afterwards does not change what the probes run.
_compile = torch.compile
_ops = torch.ops
_empty = torch.empty
_SymInt = torch.SymInt
_bool = torch.bool
_type, _int, _str, _getattr = type, int, str, getattr

_BOUND_FAILED = "Runtime assertion failed for expression"
# The step `compiled` hands torch.compile runs under Dynamo (it is traced, not read): judge check's reading rule
# passes over it (judge.problem.probe_rules); what it returns is read through judge.worker.tensors.
RUN_NOT_READ = ("step",)

NAMESPACE = "ex104"


# ---------------------------------------------------------------- helpers (not probes)


def _op(name="free_slots"):
    """The OpOverload ``ex104::<name>.default``; AttributeError if it is not registered."""
    return getattr(getattr(_ops, NAMESPACE), name).default


def _size(s):
    """One (possibly symbolic) size as plain data (a size torch holds: an int or torch's own SymInt)."""
    if _type(s) is _SymInt:
        return {"symbolic": True, "unbacked": bool(_free_unbacked_symbols(s)), "text": _str(s)}
    return {"symbolic": False, "unbacked": False, "text": _str(_int(s))}


def _describe(t):
    """Metadata of a fake / meta tensor as plain data (sizes may be symbolic), read through judge.worker.tensors;
    a tensor subclass is refused there."""
    seen = _t.describe(t)
    if seen.get("is_tensor"):
        seen.update(dim=_t.ndim(t), sizes=[_size(s) for s in _t.sizes(t)])
    return seen


def _first_line(text):
    text = str(text).strip()
    return text.splitlines()[0][:300] if text else ""


def _raised(e):
    return {"type": _t.type_name(e).rpartition(".")[2], "op": _str(_getattr(e, "func", "")), "message": _first_line(e)}


# ---------------------------------------------------------------- schema


def op_exists(solution, name="free_slots"):
    return _op_exists(f"{NAMESPACE}::{name}")


def schema(solution, name="free_slots"):
    """The registered schema as plain data, read from the dispatcher (see judge/worker/observe.py)."""
    return _schema_of(f"{NAMESPACE}::{name}")


# ---------------------------------------------------------------- eager


def eager(solution, used):
    """Call the operator once on a real tensor; the output and ``used`` afterwards (the checker compares it
    with what it sent)."""
    version = _t.version(used)
    out = _op()(used)
    return {
        "out": _t.plain(out),
        "type": _t.type_name(out),
        "meta": _t.describe(out),
        "used_after": _t.plain(used),
        "written": _t.version(used) != version,
    }


# ---------------------------------------------------------------- fake / meta


def fake_with_shape_env(solution, used):
    """Call the operator under FakeTensorMode with a ShapeEnv (as torch.compile does): the
    input's length becomes a symbolic size, and a data-dependent output size can be a fresh
    unbacked SymInt. Describes the output."""
    with _FakeTensorMode(shape_env=_ShapeEnv()) as mode:
        return _describe(_op()(mode.from_tensor(used)))


def fake_without_shape_env(solution, used):
    """Call the operator under a plain FakeTensorMode (no ShapeEnv: no symbolic sizes at all).
    Returns the output's description, or what was raised (and for which operator)."""
    op = _op()
    try:
        with _FakeTensorMode() as mode:
            return {"out": _describe(op(mode.from_tensor(used))), "raised": None}
    except Exception as e:  # noqa: BLE001 - what is raised here is the observation
        return {"out": None, "raised": _raised(e)}


def fake_meta_with_shape_env(solution, n):
    """Under FakeTensorMode with a ShapeEnv, call the operator on a fake tensor made from a meta
    tensor of length n (built here: meta tensors cannot cross to the checker). The fake must put
    its output on the device of ``used`` — meta here — so the input's device is reported too."""
    with _FakeTensorMode(shape_env=_ShapeEnv()) as mode:
        used = mode.from_tensor(_empty(n, dtype=_bool, device="meta"))
        return {"in_device": _t.device(used), "out": _describe(_op()(used))}


def meta(solution, n):
    """Call the operator on a meta tensor of length n (no data, no ShapeEnv)."""
    op = _op()
    try:
        return {"out": _describe(op(_empty(n, dtype=_bool, device="meta"))), "raised": None}
    except Exception as e:  # noqa: BLE001 - what is raised here is the observation
        return {"out": None, "raised": _raised(e)}


def run_opcheck(solution, used):
    """What opcheck's tests look at (judge/worker/opobserve.py), with the schema they compare against; the
    checker decides each test (judge/checker/opchecks.py)."""
    return {"schema": _schema_of(f"{NAMESPACE}::free_slots"), "data": _opcheck_data(_op(), (used,))}


# ---------------------------------------------------------------- torch.compile


def compiled(solution, cases):
    """Compile, with fullgraph=True and backend="aot_eager" (Dynamo's other settings left at
    their defaults), a step that uses the free slots::

        free = free_slots(used); return free, values[free], free.shape[0]

    and call it on each (used, values) in turn. The count is what the compiled graph computed
    from the output's (symbolic) size."""
    _dynamo_reset()
    op = _op()

    def step(used, values):
        free = op(used)
        return free, values[free], free.shape[0]

    fn = _compile(step, fullgraph=True, backend="aot_eager")
    results = []
    for used, values in cases:
        try:
            free, picked, count = fn(used, values)
        except RuntimeError as e:
            # The graph asserts at run time that the real size lies within the min/max the fake gave
            # new_dynamic_size; that failure is what this check observes. Anything else propagates.
            if not str(e).startswith(_BOUND_FAILED):
                raise
            results.append({"free": None, "picked": None, "count": None, "bound_failed": _first_line(e)})
            continue
        results.append(
            {
                "free": _t.plain(free),
                "picked": _t.plain(picked),
                "count": count if _type(count) is _int else repr(count),
                "bound_failed": None,
            }
        )
    return results
