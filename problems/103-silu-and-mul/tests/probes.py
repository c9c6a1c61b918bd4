"""Probes for exercise 103: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. It reaches the operator only through
``torch.ops.ex103.silu_and_mul`` (never through the learner's Python objects), does the work
that needs it (eager call, meta / fake tensors, what opcheck and gradcheck look at, torch.compile) and
returns plain observations. The checker decides pass or fail, opcheck's tests and gradcheck's
comparison included; nothing here compares or knows an expected value.

Probes are not secret: reading them shows exactly how your operator is exercised.
"""

import torch
from torch._dynamo import reset as _dynamo_reset
from torch._dynamo.testing import CompileCounterWithBackend as _CompileCounter
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode

from judge.worker.observe import op_exists as _op_exists
from judge.worker.observe import schema as _schema_of
from judge.worker.opobserve import opcheck_data as _opcheck_data

# Bound at import time, before the learner's module is imported, so that a submission which
# replaces these functions afterwards does not change what the probes run.
_compile = torch.compile
_ops = torch.ops
_empty = torch.empty
_Tensor = torch.Tensor

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


# ---------------------------------------------------------------- schema


def op_exists(solution, name="silu_and_mul"):
    return _op_exists(f"{NAMESPACE}::{name}")


def schema(solution, name="silu_and_mul"):
    """The registered schema as plain data, read from the dispatcher (see judge/worker/observe.py)."""
    return _schema_of(f"{NAMESPACE}::{name}")


# ---------------------------------------------------------------- forward


def eager(solution, x):
    """Call the operator once; the output, the input afterwards (the checker compares it with what it sent),
    and whether the output shares the input's memory."""
    out = _op()(x)
    if not isinstance(out, _Tensor):
        return {"out": None, "type": type(out).__name__, "x_after": _plain(x), "shares_input_memory": False}
    shares = out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    return {"out": _plain(out), "type": type(out).__name__, "x_after": _plain(x), "shares_input_memory": shares}


def meta(solution, shape, dtype):
    """Call the operator on a meta tensor (no data at all); describe the output."""
    return _describe(_op()(_empty(*shape, dtype=dtype, device="meta")))


def fake(solution, x):
    """Call the operator under FakeTensorMode on a fake copy of a real CPU tensor."""
    with _FakeTensorMode() as mode:
        return _describe(_op()(mode.from_tensor(x)))


def run_opcheck(solution, x):
    """What opcheck's tests look at (judge/worker/opobserve.py), with the schema they compare against; the
    checker decides each test (judge/checker/opchecks.py).

    test_schema runs on an input that does not require grad: it checks what the operator itself
    does (mutations, an output aliasing the input). With grad it would also check what
    setup_context does below autograd, and reject a correct ``save_for_backward(x.to(dtype))``,
    which returns x itself when x already has that dtype. The other tests run on an input that
    requires grad, so that they exercise the registered backward."""
    return {"schema": _schema_of(f"{NAMESPACE}::silu_and_mul"), "data": _opcheck_data(_op(), (x,), grad=(0,))}


# ---------------------------------------------------------------- backward


def backward(solution, x, grad_out):
    """Eager forward + backward; the gradient of x (or None)."""
    x = x.clone().requires_grad_(True)
    out = _op()(x)
    if not isinstance(out, _Tensor) or not out.requires_grad:
        return {"out_requires_grad": False, "x_grad": None}
    out.backward(grad_out)
    return {"out_requires_grad": True, "x_grad": _plain(x.grad)}


def run_gradcheck(solution, x, grad_out, points):
    """What gradcheck compares, for the checker to compare (judge/checker/gradchecks.py): the float64 gradient
    the backward gives for the checker's output gradient, the input afterwards, and the forward at the checker's
    nearby points. Each call on fresh copies."""
    op = _op()
    xg = x.clone().requires_grad_(True)
    out = op(xg)
    if not isinstance(out, _Tensor) or not out.requires_grad:
        return {"out_requires_grad": False, "x_grad": None, "x_after": None, "forward": []}
    out.backward(grad_out)
    forward = [_plain(op(px.clone())) for (px,) in points]
    return {"out_requires_grad": True, "x_grad": _plain(xg.grad), "x_after": _plain(xg), "forward": forward}


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
