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
_grad = torch.autograd.grad

NAMESPACE = "ex103"


# ---------------------------------------------------------------- helpers (not probes)


def _op(name="silu_and_mul"):
    """The OpOverload ``ex103::<name>.default``; AttributeError if it is not registered."""
    return getattr(getattr(_ops, NAMESPACE), name).default


# ---------------------------------------------------------------- schema


def op_exists(solution, name="silu_and_mul"):
    return _op_exists(f"{NAMESPACE}::{name}")


def schema(solution, name="silu_and_mul"):
    """The registered schema as plain data, read from the dispatcher (see judge/worker/observe.py)."""
    return _schema_of(f"{NAMESPACE}::{name}")


# ---------------------------------------------------------------- forward


def eager(solution, x):
    """Call the operator once; the output and its metadata (contiguity, storage offset), the input afterwards (the
    checker compares it with what it sent), whether anything wrote it in place, and whether the output shares the
    input's memory."""
    version = _t.version(x)
    out = _op()(x)
    written = _t.version(x) != version
    if not _t.is_plain(out):
        refused = _t.plain(out)
        return {"out": refused, "type": _t.type_name(out), "x_after": _t.plain(x), "shares_input_memory": False,
                "written": written, "meta": _t.describe(out)}  # fmt: skip
    return {
        "out": _t.plain(out),
        "type": _t.type_name(out),
        "meta": _t.describe(out),
        "x_after": _t.plain(x),
        "written": written,
        "shares_input_memory": _t.storage_ptr(out) == _t.storage_ptr(x),
    }


def meta(solution, shape, dtype):
    """Call the operator on a meta tensor (no data at all); describe the output."""
    return _t.describe(_op()(_empty(*shape, dtype=dtype, device="meta")))


def fake(solution, x):
    """Call the operator under FakeTensorMode on a fake copy of a real CPU tensor."""
    with _FakeTensorMode() as mode:
        return _t.describe(_op()(mode.from_tensor(x)))


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


def _backward(op, x, grad_out, twice=False):
    """Forward on a fresh leaf, then x's gradient for grad_out (twice on the same graph when asked: a backward must
    give the same gradient every time it runs, as gradcheck checks); x afterwards, and whether it was written."""
    xg = _t.leaf(x)
    version = _t.version(xg)
    out = op(xg)
    if not _t.is_plain(out) or not _t.requires_grad(out):
        return {"out_requires_grad": False, "x_grad": None, "refused": _t.plain(out)}
    runs = [_grad((out,), (xg,), (grad_out,), retain_graph=twice, allow_unused=True)[0] for _ in range(1 + twice)]
    found = {
        "out_requires_grad": True,
        "x_grad": _t.plain(runs[0]),
        "x_after": _t.plain(xg),
        "written": _t.version(xg) != version,
    }
    if twice:
        found["x_grad_again"] = _t.plain(runs[1])
    return found


def backward(solution, x, grad_out):
    """Eager forward + backward; the gradient of x (or None)."""
    return _backward(_op(), x, grad_out)


def run_gradcheck(solution, x, grad_out, points):
    """What gradcheck compares, for the checker to compare (judge/checker/gradchecks.py): the float64 gradient
    the backward gives for the checker's output gradient (twice, for reentrancy), the input afterwards, and the
    forward at the checker's nearby points. Each call on fresh copies."""
    op = _op()
    found = _backward(op, x, grad_out, twice=True)
    if not found["out_requires_grad"]:
        return {"out_requires_grad": False, "x_grad": None, "x_after": None, "forward": []}
    found["forward"] = [_t.plain(op(_t.copy(px))) for (px,) in points]
    return found


# ---------------------------------------------------------------- torch.compile


def compiled_shapes(solution, xs):
    """Compile ``lambda x: silu_and_mul(x)`` once with fullgraph=True, backend="aot_eager",
    dynamic=True, and call it on each input in turn (no gradients: only the fake implementation
    is traced). Returns the outputs; the graphs Dynamo compiled are counted by the checker, from what the judge's
    own backend reports through the channel as it compiles each (judge.worker.compiled)."""
    _dynamo_reset()
    op = _op()

    def block(x):
        return op(x)

    fn = _compile(block, fullgraph=True, backend=_compiled.reporting("aot_eager"), dynamic=True)
    return {"outs": [_t.plain(fn(x)) for x in xs]}


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
        x = _t.leaf(x)
        out = fn(x)
        item = {"out": _t.plain(out), "out_requires_grad": _t.is_plain(out) and _t.requires_grad(out), "x_grad": None}
        if item["out_requires_grad"]:
            _t.backward(out, g)
            item["x_grad"] = _t.plain(_t.grad(x))
        results.append(item)
    return results
