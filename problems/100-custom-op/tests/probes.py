"""Probes for exercise 100: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. It reaches the learner's operators only through
``torch.ops.ex100.*`` (never through the learner's Python objects), does the work that needs
them (eager call, meta / fake tensors, what opcheck and gradcheck look at, torch.compile) and
returns plain observations: None, bool, int, float, str, lists, dicts and plain CPU tensors. The
checker decides pass or fail, opcheck's tests and gradcheck's comparison included; nothing here
compares or knows an expected value.

Probes are not secret: reading them shows exactly how your operators are exercised.
"""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode

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


NAMESPACE = "ex100"


# ---------------------------------------------------------------- helpers (not probes)


def _op(name):
    """The OpOverload ``ex100::<name>.default``; AttributeError if it is not registered."""
    return getattr(getattr(_ops, NAMESPACE), name).default


def _returned(ret):
    """What a call returned, as a type name (None for None)."""
    return None if ret is None else _t.type_name(ret)


def _versions(**named):
    """The version counter of each tensor: compared after a call, it tells an in-place write even where the values
    were put back."""
    return {name: _t.version(t) for name, t in named.items()}


def _written(before, **named):
    return {name: _t.version(t) != before[name] for name, t in named.items()}


# ---------------------------------------------------------------- schema


def op_exists(solution, name):
    return _op_exists(f"{NAMESPACE}::{name}")


def schema(solution, name):
    """The registered schema as plain data, read from the dispatcher (see judge/worker/observe.py)."""
    return _schema_of(f"{NAMESPACE}::{name}")


# ---------------------------------------------------------------- kv_write


def _memory(t):
    """Where a tensor's elements live: storage address, offset, shape and strides."""
    return (_t.storage_ptr(t), _t.offset(t), tuple(_t.shape(t)), tuple(_t.strides(t)))


def kv_write_eager(solution, k_cache, v_cache, slots, k, v):
    """Call kv_write once and return every argument afterwards (copies of the very tensors that were passed in),
    what the call returned, whether each cache still uses the memory it had before the call (False when the
    implementation swapped its storage, say with ``k_cache.data = ...`` or ``k_cache.set_(...)``, instead of writing
    into it), and whether anything wrote each argument in place (its version counter moved)."""
    before = {"k_cache": _memory(k_cache), "v_cache": _memory(v_cache)}
    versions = _versions(k_cache=k_cache, v_cache=v_cache, slots=slots, k=k, v=v)
    ret = _op("kv_write")(k_cache, v_cache, slots, k, v)
    return {
        "returned": _returned(ret),
        "k_cache": _t.plain(k_cache),
        "v_cache": _t.plain(v_cache),
        "slots": _t.plain(slots),
        "k": _t.plain(k),
        "v": _t.plain(v),
        "same_memory": {
            "k_cache": _memory(k_cache) == before["k_cache"],
            "v_cache": _memory(v_cache) == before["v_cache"],
        },
        "written": _written(versions, k_cache=k_cache, v_cache=v_cache, slots=slots, k=k, v=v),
    }


def kv_write_into_pool(solution, pool, layout, slots, k, v):
    """kv_write on caches that are views of one buffer ``pool``:

    - ``"stacked"``: pool of shape (2, N, ...), k_cache = pool[0], v_cache = pool[1] (contiguous);
    - ``"halves"``: pool of shape (N, ..., 2 * D), k_cache, v_cache = pool.chunk(2, dim=-1)
      (each of shape (N, ..., D), not contiguous).

    Returns the pool afterwards (what every other view of that memory sees), whether each
    cache still uses the memory it had before the call, and whether slots, k or v were written."""
    if layout == "stacked":
        k_cache, v_cache = pool[0], pool[1]
    elif layout == "halves":
        k_cache, v_cache = pool.chunk(2, dim=-1)
    else:
        raise ValueError(layout)
    before = {"k_cache": _memory(k_cache), "v_cache": _memory(v_cache)}
    versions = _versions(slots=slots, k=k, v=v)
    ret = _op("kv_write")(k_cache, v_cache, slots, k, v)
    return {
        "returned": _returned(ret),
        "pool": _t.plain(pool),
        "same_memory": {
            "k_cache": _memory(k_cache) == before["k_cache"],
            "v_cache": _memory(v_cache) == before["v_cache"],
        },
        "written": _written(versions, slots=slots, k=k, v=v),
    }


def kv_write_meta(solution, n, trailing, dtype, num_slots):
    """Call kv_write on meta tensors (no data at all)."""
    kc = _empty(n, *trailing, dtype=dtype, device="meta")
    vc = _empty(n, *trailing, dtype=dtype, device="meta")
    slots = _empty(num_slots, dtype=torch.int64, device="meta")
    k = _empty(num_slots, *trailing, dtype=dtype, device="meta")
    v = _empty(num_slots, *trailing, dtype=dtype, device="meta")
    ret = _op("kv_write")(kc, vc, slots, k, v)
    return {"returned": _returned(ret)}


def kv_write_fake(solution, k_cache, v_cache, slots, k, v):
    """Call kv_write under FakeTensorMode (fake copies of real CPU tensors)."""
    with _FakeTensorMode() as mode:
        args = [mode.from_tensor(t) for t in (k_cache, v_cache, slots, k, v)]
        ret = _op("kv_write")(*args)
        return {"returned": _returned(ret), "k_cache": _t.describe(args[0]), "v_cache": _t.describe(args[1])}


def kv_write_opcheck(solution, k_cache, v_cache, slots, k, v):
    """What opcheck's tests look at for kv_write (judge/worker/opobserve.py), with the schema they compare
    against; the checker decides each test (judge/checker/opchecks.py)."""
    return {
        "schema": _schema_of(f"{NAMESPACE}::kv_write"),
        "data": _opcheck_data(_op("kv_write"), (k_cache, v_cache, slots, k, v)),
    }


def kv_write_compiled(solution, k_cache, v_cache, slots, k, v, backend="aot_eager"):
    """kv_write inside a function compiled with fullgraph=True; returns the caches afterwards."""
    op = _op("kv_write")

    def step(kc, vc, s, kk, vv):
        op(kc, vc, s, kk, vv)

    _compile(step, fullgraph=True, backend=backend, dynamic=False)(k_cache, v_cache, slots, k, v)
    return {"k_cache": _t.plain(k_cache), "v_cache": _t.plain(v_cache)}


# ---------------------------------------------------------------- rms_norm


def rms_norm_eager(solution, x, weight, eps=None):
    """Call rms_norm once (without eps when eps is None); return the output, the inputs afterwards (the checker
    compares them with what it sent), whether anything wrote them in place, and whether the output shares memory
    with an input."""
    op = _op("rms_norm")
    versions = _versions(x=x, weight=weight)
    out = op(x, weight) if eps is None else op(x, weight, eps)
    written = _written(versions, x=x, weight=weight)
    if not _t.is_plain(out):
        return {"out": _t.plain(out), "type": _t.type_name(out), "written": written}
    shares = any(_t.storage_ptr(out) == _t.storage_ptr(t) for t in (x, weight))
    return {
        "out": _t.plain(out),
        "type": _t.type_name(out),
        "shares_input_memory": shares,
        "x_after": _t.plain(x),
        "weight_after": _t.plain(weight),
        "written": written,
    }


def rms_norm_meta(solution, shape, dtype, eps=1e-6):
    """Call rms_norm on meta tensors; describe the output."""
    x = _empty(*shape, dtype=dtype, device="meta")
    w = _empty(shape[-1], dtype=dtype, device="meta")
    return _t.describe(_op("rms_norm")(x, w, eps))


def rms_norm_fake(solution, x, weight, eps=1e-6):
    """Call rms_norm under FakeTensorMode (fake copies of real CPU tensors); describe the output."""
    with _FakeTensorMode() as mode:
        fx, fw = mode.from_tensor(x), mode.from_tensor(weight)
        return _t.describe(_op("rms_norm")(fx, fw, eps))


def rms_norm_opcheck(solution, x, weight, eps):
    """What opcheck's tests look at for rms_norm, with the schema they compare against.

    test_schema runs on inputs that do not require grad: it checks what the operator itself
    does (mutations, aliasing of the output). The other tests (test_autograd_registration,
    test_faketensor, test_aot_dispatch_dynamic) run on inputs that require grad, so that they
    exercise the registered backward."""
    return {
        "schema": _schema_of(f"{NAMESPACE}::rms_norm"),
        "data": _opcheck_data(_op("rms_norm"), (x, weight, eps), grad=(0, 1)),
    }


def _backward(op, x, weight, eps, grad_out, twice=False):
    """Forward on fresh leaves, then the gradients of x and weight for grad_out (twice on the same graph when asked:
    a backward must give the same gradients every time it runs, as gradcheck checks); the inputs afterwards, and
    whether anything wrote them in place."""
    xg, wg = _t.leaf(x), _t.leaf(weight)
    versions = _versions(x=xg, weight=wg)
    out = op(xg, wg, eps)
    if not _t.is_plain(out) or not _t.requires_grad(out):
        return {"out_requires_grad": False, "refused": _t.plain(out) if _t.kind(out) == _t.SUBCLASS else None}
    runs = [_grad((out,), (xg, wg), (grad_out,), retain_graph=twice, allow_unused=True) for _ in range(1 + twice)]
    found = {
        "out_requires_grad": True,
        "x_grad": _t.plain(runs[0][0]),
        "weight_grad": _t.plain(runs[0][1]),
        "x_after": _t.plain(xg),
        "weight_after": _t.plain(wg),
        "written": _written(versions, x=xg, weight=wg),
    }
    if twice:
        found["again"] = {"x_grad": _t.plain(runs[1][0]), "weight_grad": _t.plain(runs[1][1])}
    return found


def rms_norm_backward(solution, x, weight, eps, grad_out):
    """Eager forward + backward through torch.ops.ex100.rms_norm; gradients (or None) and the inputs afterwards."""
    found = _backward(_op("rms_norm"), x, weight, eps, grad_out)
    if not found["out_requires_grad"]:
        found.update(x_grad=None, weight_grad=None, x_after=None, weight_after=None)
    return found


def rms_norm_gradcheck(solution, x, weight, eps, grad_outs, points):
    """What gradcheck compares, for the checker to compare: the float64 gradients the registered backward
    gives for each of the checker's output gradients (vector-Jacobian products; the first one computed twice on the
    same graph, for reentrancy), and the forward's outputs at the checker's nearby points (from which it computes
    finite differences). Each call on fresh copies."""
    op = _op("rms_norm")
    found = []
    for i, grad_out in enumerate(grad_outs):
        one = _backward(op, x, weight, eps, grad_out, twice=i == 0)
        if not one["out_requires_grad"]:
            return {"out_requires_grad": False, "grads": [], "forward": []}
        found.append(one)
    forward = [_t.plain(op(_t.copy(px), _t.copy(pw), eps)) for px, pw in points]
    return {"out_requires_grad": True, "grads": found, "forward": forward}


def rms_norm_compiled(solution, x, weight, eps, grad_out, backend="aot_eager"):
    """rms_norm inside a function compiled with fullgraph=True; forward output and the
    gradients of a backward through the compiled graph."""
    op = _op("rms_norm")

    def block(a, b):
        return op(a, b, eps)

    x, weight = _t.leaf(x), _t.leaf(weight)
    out = _compile(block, fullgraph=True, backend=backend, dynamic=False)(x, weight)
    if not _t.is_plain(out):
        return {"out": _t.plain(out), "out_requires_grad": False, "x_grad": None, "weight_grad": None}
    grads = {"out_requires_grad": _t.requires_grad(out), "x_grad": None, "weight_grad": None}
    if grads["out_requires_grad"]:
        _t.backward(out, grad_out)
        grads.update(x_grad=_t.plain(_t.grad(x)), weight_grad=_t.plain(_t.grad(weight)))
    return {"out": _t.plain(out), **grads}
