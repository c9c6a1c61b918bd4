"""Probes for exercise 103: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. It reaches the operator only through
``torch.ops.ex103.silu_and_mul`` (never through the learner's Python objects), does the work
that needs it (eager call, meta / fake tensors, opcheck, gradcheck, torch.compile) and returns
plain observations. The checker decides pass or fail; nothing here knows an expected value.

Probes are not secret: reading them shows exactly how your operator is exercised.
"""

import torch
from torch._dynamo import reset as _dynamo_reset
from torch._dynamo.testing import CompileCounterWithBackend as _CompileCounter
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode
from torch.autograd.gradcheck import GradcheckError as _GradcheckError
from torch.library import opcheck as _opcheck

from judge.worker.observe import op_exists as _op_exists
from judge.worker.observe import schema as _schema_of

# Bound at import time, before the learner's module is imported, so that a submission which
# replaces these functions afterwards does not change what the probes run.
_gradcheck = torch.autograd.gradcheck
_compile = torch.compile
_ops = torch.ops
_empty = torch.empty
_equal = torch.equal
_Tensor = torch.Tensor

_OPCHECK_UTILS = tuple(torch.library._OPCHECK_DEFAULT_UTILS)
_SCHEMA_TEST = tuple(t for t in _OPCHECK_UTILS if t == "test_schema")
_GRAD_TESTS = tuple(t for t in _OPCHECK_UTILS if t != "test_schema")

NAMESPACE = "ex103"


# ---------------------------------------------------------------- helpers (not probes)


def _op(name="silu_and_mul"):
    """The OpOverload ``ex103::<name>.default``; AttributeError if it is not registered."""
    return getattr(getattr(_ops, NAMESPACE), name).default


def _describe(t):
    """Metadata of a (meta / fake / real) tensor as plain data."""
    if not isinstance(t, _Tensor):
        return {"is_tensor": False, "type": type(t).__name__}
    return {
        "is_tensor": True,
        "shape": [int(s) for s in t.shape],
        "dtype": str(t.dtype),
        "device": str(t.device),
        "type": type(t).__name__,
    }


def _plain(t):
    """A plain CPU tensor the checker can receive (or None)."""
    if not isinstance(t, _Tensor):
        return None
    return t.detach().clone().contiguous()


def _first_line(text):
    text = str(text).strip()
    return text.splitlines()[0][:300] if text else ""


# ---------------------------------------------------------------- schema


def op_exists(solution, name="silu_and_mul"):
    return _op_exists(f"{NAMESPACE}::{name}")


def schema(solution, name="silu_and_mul"):
    """The registered schema as plain data, read from the dispatcher (see judge/worker/observe.py)."""
    return _schema_of(f"{NAMESPACE}::{name}")


# ---------------------------------------------------------------- forward


def eager(solution, x):
    """Call the operator once; the output, and whether the input changed or is shared."""
    before = x.clone()
    out = _op()(x)
    if not isinstance(out, _Tensor):
        return {
            "out": None,
            "type": type(out).__name__,
            "x_changed": not _equal(x, before),
            "shares_input_memory": False,
        }
    shares = out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    return {
        "out": _plain(out),
        "type": type(out).__name__,
        "x_changed": not _equal(x, before),
        "shares_input_memory": shares,
    }


def meta(solution, shape, dtype):
    """Call the operator on a meta tensor (no data at all); describe the output."""
    return _describe(_op()(_empty(*shape, dtype=dtype, device="meta")))


def fake(solution, x):
    """Call the operator under FakeTensorMode on a fake copy of a real CPU tensor."""
    with _FakeTensorMode() as mode:
        return _describe(_op()(mode.from_tensor(x)))


def run_opcheck(solution, x):
    """torch.library.opcheck: {test name: "SUCCESS" or the error's type and first line}.

    test_schema runs on an input that does not require grad: it checks what the operator itself
    does (mutations, an output aliasing the input). With grad it would also check what
    setup_context does below autograd, and reject a correct ``save_for_backward(x.to(dtype))``,
    which returns x itself when x already has that dtype. The other tests run on an input that
    requires grad, so that they exercise the registered backward."""
    op = _op()
    result = dict(_opcheck(op, (x.clone(),), test_utils=_SCHEMA_TEST, raise_exception=False))
    result.update(_opcheck(op, (x.clone().requires_grad_(True),), test_utils=_GRAD_TESTS, raise_exception=False))
    return {
        key: result[key] if result[key] == "SUCCESS" else f"{type(result[key]).__name__}: {_first_line(result[key])}"
        for key in _OPCHECK_UTILS
        if key in result
    }


# ---------------------------------------------------------------- backward


def backward(solution, x, grad_out):
    """Eager forward + backward; the gradient of x (or None)."""
    x = x.clone().requires_grad_(True)
    out = _op()(x)
    if not isinstance(out, _Tensor) or not out.requires_grad:
        return {"out_requires_grad": False, "x_grad": None}
    out.backward(grad_out)
    return {"out_requires_grad": True, "x_grad": _plain(x.grad)}


def run_gradcheck(solution, x):
    """torch.autograd.gradcheck on a float64 input. Only a failed comparison becomes an
    observation; anything else the learner's code raises propagates."""
    op = _op()
    x = x.clone().requires_grad_(True)
    try:
        ok = _gradcheck(op, (x,))
    except _GradcheckError as e:
        return {"passed": False, "message": _first_line(e)}
    return {"passed": bool(ok), "message": ""}


# ---------------------------------------------------------------- torch.compile


def compiled_shapes(solution, xs):
    """Compile ``lambda x: silu_and_mul(x)`` once with fullgraph=True, backend="aot_eager",
    dynamic=True, and call it on each input in turn (no gradients: only the fake implementation
    is traced). Returns the outputs and how many graphs Dynamo compiled in all."""
    _dynamo_reset()
    op = _op()
    counter = _CompileCounter("aot_eager")

    def block(x):
        return op(x)

    fn = _compile(block, fullgraph=True, backend=counter, dynamic=True)
    outs = [_plain(fn(x)) for x in xs]
    return {"outs": outs, "graphs": counter.frame_count}


def compiled_backward(solution, xs, grads):
    """The operator inside ``torch.compile(fullgraph=True, backend="aot_eager", dynamic=True)``,
    forward and backward through the compiled graph, for each (x, grad_out) in turn."""
    _dynamo_reset()
    op = _op()

    def block(x):
        return op(x)

    fn = _compile(block, fullgraph=True, backend="aot_eager", dynamic=True)
    results = []
    for x, g in zip(xs, grads):
        x = x.clone().requires_grad_(True)
        out = fn(x)
        item = {"out": _plain(out), "out_requires_grad": bool(getattr(out, "requires_grad", False)), "x_grad": None}
        if item["out_requires_grad"]:
            out.backward(g)
            item["x_grad"] = _plain(x.grad)
        results.append(item)
    return results
