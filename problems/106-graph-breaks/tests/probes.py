"""Probes for exercise 106: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. The operator is reached only through the dispatcher
(``torch.ops.ex106.gelu``); ``mlp`` is the learner's own Python function, which is what Dynamo
traces. Probes return plain observations (graph counts, break reasons, outputs); the checker
decides pass or fail and knows every expected value.

Probes are not secret: reading them shows exactly how your code is exercised.
"""

import torch
from torch._dynamo import reset as _dynamo_reset
from torch._dynamo.exc import Unsupported as _Unsupported
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode

from judge.worker import compiled as _compiled
from judge.worker import tensors as _t
from judge.worker.observe import op_exists as _op_exists
from judge.worker.observe import schema as _schema_of
from judge.worker.opobserve import opcheck_data as _opcheck_data

# Bound at import time, before the learner's module is imported, so that a submission which
# replaces these functions afterwards does not change what the probes run. Every tensor is read
# through judge.worker.tensors (torch's own C descriptors), never through its attributes.
_compile = torch.compile
_ops = torch.ops
_empty = torch.empty
_callable = callable
_str = str

QUALIFIED = "ex106::gelu"


# ---------------------------------------------------------------- helpers (not probes)


def _op():
    """The OpOverload ``ex106::gelu.default``; AttributeError if it is not registered."""
    return _ops.ex106.gelu.default


def _first_line(text):
    text = _str(text).strip()
    return text.splitlines()[0][:300] if text else ""


def _mlp(solution):
    fn = getattr(solution, "mlp", None)
    if not _callable(fn):
        raise AttributeError("mlp(x, w1, w2) is not defined in your file")
    return fn


# ---------------------------------------------------------------- the operator


def op_exists(solution):
    return _op_exists(QUALIFIED)


def schema(solution):
    """The registered schema as plain data, read from the dispatcher (see judge/worker/observe.py)."""
    return _schema_of(QUALIFIED)


def eager(solution, x):
    """Call the operator once; the output, the input afterwards (the checker compares it with what it
    sent), whether anything wrote it in place, and whether the output is shared with the input."""
    version = _t.version(x)
    out = _op()(x)
    written = _t.version(x) != version
    if not _t.is_plain(out):
        return {
            "out": _t.plain(out),
            "type": _t.type_name(out),
            "x_after": _t.plain(x),
            "written": written,
            "shares_input_memory": False,
            "contiguous": False,
        }
    return {
        "out": _t.plain(out),
        "type": _t.type_name(out),
        "x_after": _t.plain(x),
        "written": written,
        "shares_input_memory": _t.storage_ptr(out) == _t.storage_ptr(x),
        "contiguous": _t.is_contiguous(out),
    }


def meta(solution, shape, dtype):
    """Call the operator on a meta tensor (no data at all); describe the output."""
    return _t.describe(_op()(_empty(*shape, dtype=dtype, device="meta")))


def fake(solution, x):
    """Call the operator under FakeTensorMode on a fake copy of a real CPU tensor."""
    with _FakeTensorMode() as mode:
        return _t.describe(_op()(mode.from_tensor(x)))


def run_opcheck(solution, x):
    """What opcheck's tests look at, no input requiring grad (judge/worker/opobserve.py), with the schema
    they compare against; the checker decides each test (judge/checker/opchecks.py)."""
    return {"schema": _schema_of(QUALIFIED), "data": _opcheck_data(_op(), (x,))}


# ---------------------------------------------------------------- mlp under Dynamo


def mlp_eager(solution, x, w1, w2):
    return _t.plain(_mlp(solution)(x, w1, w2))


def explain(solution, x, w1, w2):
    """What torch._dynamo.explain(mlp)(x, w1, w2) looks at: the graphs Dynamo captures (reported to the checker by
    the judge's own backend as it compiles each, node targets and all: judge.worker.compiled), whether the capture
    broke, and the first break's reason.

    Captured with fullgraph=True, which stops at the first graph break and names its reason, and run
    through aot_eager. explain itself runs the code between graph breaks with Dynamo's frame hook
    installed and the learner's mlp on the stack, which the worker's guard refuses
    (judge/worker/guard.py); a capture that stops at the first break needs no such frame. So a break
    counts as two graphs and one break, the least explain would report for it."""
    _dynamo_reset()
    try:
        _compile(_mlp(solution), fullgraph=True, backend=_compiled.reporting("aot_eager"))(x, w1, w2)
        broke, reason = False, ""
    except _Unsupported as exc:
        broke, reason = True, _first_line(exc)
    finally:
        _dynamo_reset()
    return {"broke": broke, "reason": reason}


def compiled(solution, xs, w1, w2, dynamic):
    """torch.compile(mlp, fullgraph=True, backend="aot_eager", dynamic=dynamic) called on each x in
    turn; the outputs. The graphs Dynamo compiled are counted by the checker from the judge's backend's reports."""
    _dynamo_reset()
    try:
        fn = _compile(_mlp(solution), fullgraph=True, backend=_compiled.reporting("aot_eager"), dynamic=dynamic)
        outs = [_t.plain(fn(x, w1, w2)) for x in xs]
    finally:
        _dynamo_reset()
    return {"outs": outs}
