"""Probes for exercise 105: run inside the worker, next to the learner's module.

Part 1, dispatch_keys: the checker describes a tensor as plain data (requires_grad, views,
inference mode and the like do not survive the channel); ``make_tensor`` builds it here and
the probe passes it to ``solution.dispatch_keys``. The checker builds the same tensor with the
same function and asks torch itself.

Part 2, ex105::scaled_dot: reached only through ``torch.ops.ex105.scaled_dot`` (eager, under
autocast, on meta and fake tensors, what opcheck looks at, torch.compile). Probes return plain
observations; the checker decides, opcheck's tests included.

Probes are not secret: reading them shows exactly how your code is exercised.
"""

import types
import warnings

import torch
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode

from judge.worker import tensors as _t
from judge.worker.observe import schema as _schema_of
from judge.worker.opobserve import opcheck_data as _opcheck_data

# Bound at import time, before the learner's module is imported, so that a submission which
# replaces these functions afterwards does not change what the probes run.
_dispatch_keys = torch._C._dispatch_keys
_has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
_autocast = torch.autocast
_compile = torch.compile
_vmap = torch.func.vmap
_ops = torch.ops
_empty = torch.empty
_type, _str, _list, _repr, _all = type, str, list, repr, all
_list_items = list.__iter__

OP = "ex105::scaled_dot"
# These build the tensors handed to the learner's dispatch_keys (and the checker builds the same ones with them):
# they construct, they observe nothing, so judge check's reading rule passes over them (judge.problem.probe_rules).
RUN_NOT_READ = ("_create", "body")


# ---------------------------------------------------------------- part 1: tensors from descriptions
# Shared with the checker, which imports this file to build the same tensors.


# The subclass is handed to the learner's dispatch_keys, so its methods' globals must not be this module's (a
# method's __globals__ would reach every helper a probe relies on): it is defined in a module of its own that
# holds nothing but torch and the class.
_SUBCLASS_SOURCE = '''
import torch


class DataFreeSubclass(torch.Tensor):
    """A tensor subclass that holds no data and intercepts every op in __torch_dispatch__, the
    way FakeTensor does (this one refuses them all)."""

    @staticmethod
    def __new__(cls, shape, dtype, device):
        return torch.Tensor._make_wrapper_subclass(cls, shape, dtype=dtype, device=device)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise NotImplementedError(f"DataFreeSubclass has no data: {func} is not supported")
'''


def _handed_module():
    module = types.ModuleType("ex105_handed", "What probes hand to learner code: nothing a probe relies on.")
    exec(compile(_SUBCLASS_SOURCE, __file__, "exec"), vars(module))
    return module


DataFreeSubclass = _handed_module().DataFreeSubclass


def _create(desc):
    shape = list(desc.get("shape", [2, 3]))
    dtype = getattr(torch, desc.get("dtype", "float32"))
    device = desc.get("device", "cpu")
    kind = desc.get("kind", "dense")
    if kind == "dense":
        t = torch.zeros(shape, dtype=dtype, device=device)
    elif kind == "parameter":
        t = torch.nn.Parameter(torch.zeros(shape, dtype=dtype, device=device))
    elif kind == "sparse_coo":
        t = torch.zeros(shape, dtype=dtype).to_sparse()
    elif kind == "sparse_csr":
        t = torch.zeros(shape, dtype=dtype).to_sparse_csr()
    elif kind == "nested":
        t = torch.nested.nested_tensor([torch.zeros(2, 3, dtype=dtype), torch.zeros(4, 3, dtype=dtype)])
    elif kind == "zero":
        t = torch._efficientzerotensor(shape, dtype=dtype, device=device)
    elif kind == "subclass":
        t = DataFreeSubclass(shape, dtype, device)
    else:
        raise ValueError(f"unknown tensor kind {kind!r}")
    if desc.get("requires_grad"):
        t.requires_grad_(True)
    view = desc.get("view")
    if view == "transpose":
        t = t.transpose(0, 1)
    elif view == "slice":
        t = t[1:]
    elif view == "expand":
        t = t.unsqueeze(0).expand(3, *t.shape)
    elif view == "detach":
        t = t.detach()
    elif view == "conj":
        t = t.conj()
    elif view == "neg":
        t = torch._neg_view(t)
    elif view is not None:
        raise ValueError(f"unknown view {view!r}")
    return t


def make_tensor(desc):
    """The tensor a description stands for (created under inference_mode if desc["inference"])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sparse CSR / nested tensors announce their beta status
        if desc.get("inference"):
            with torch.inference_mode():
                return _create(desc)
        return _create(desc)


def keys_seen(desc, fn, where="plain"):
    """fn(t) for the described tensor t, called directly ("plain") or on the per-example tensor
    inside torch.func.vmap ("vmap")."""
    t = make_tensor(desc)
    if where == "plain":
        return fn(t)
    seen = []

    def body(x):
        seen.append(fn(x))
        return x.sum()

    if where != "vmap":
        raise ValueError(where)
    _vmap(body)(t)
    return seen[0]


# ---------------------------------------------------------------- helpers (not probes)


def _op():
    return _ops.ex105.scaled_dot.default


def _describe(t):
    """A tensor's metadata through judge.worker.tensors (a subclass is refused there)."""
    return _t.describe(t)


def _names(result):
    """The learner's list[str] (read with list's own iterator), or its type and repr."""
    kind = _t.type_name(result).rpartition(".")[2]
    if _list in _t.mro(result):
        names = _list(_list_items(result))
        if _all(_type(k) is _str for k in names):  # the statement asks for list[str]
            return {"names": names, "type": kind}
    return {"names": None, "type": kind, "repr": _repr(result)[:120]}


# ---------------------------------------------------------------- probes: dispatch_keys


def dispatch_keys(solution, desc, where="plain"):
    """solution.dispatch_keys(t) for the described tensor."""
    return _names(keys_seen(desc, solution.dispatch_keys, where))


# ---------------------------------------------------------------- probes: scaled_dot


def op_schema(solution):
    """The registered schema as text (None if ex105::scaled_dot does not exist), and whether a
    kernel is registered at the AutocastCPU dispatch key; both read from the dispatcher (see
    judge/worker/observe.py), not from the overridable OpOverload._schema."""
    found = _schema_of(OP)
    if found is None:
        return {"schema": None, "autocast_cpu_kernel": False}
    return {"schema": found["text"], "autocast_cpu_kernel": bool(_has_kernel(OP, "AutocastCPU"))}


def scaled_dot(solution, a, b, scale, autocast=False):
    """One call, optionally under torch.autocast("cpu", dtype=torch.bfloat16); the output and
    the inputs afterwards (the checker compares them with what it sent)."""
    if autocast:
        with _autocast("cpu", dtype=torch.bfloat16):
            out = _op()(a, b, scale)
    else:
        out = _op()(a, b, scale)
    return {
        "out": _t.plain(out),
        **_describe(out),
        "a_after": _t.plain(a),
        "b_after": _t.plain(b),
    }


def scaled_dot_meta(solution, shape, dtype, scale):
    a = _empty(*shape, dtype=dtype, device="meta")
    b = _empty(*shape, dtype=dtype, device="meta")
    return _describe(_op()(a, b, scale))


def scaled_dot_fake(solution, a, b, scale, autocast=False):
    """The op on fake copies of real CPU tensors, optionally under autocast (what torch.compile
    sees while it traces an autocast region)."""
    with _FakeTensorMode() as mode:
        fa, fb = mode.from_tensor(a), mode.from_tensor(b)
        if autocast:
            with _autocast("cpu", dtype=torch.bfloat16):
                return _describe(_op()(fa, fb, scale))
        return _describe(_op()(fa, fb, scale))


def scaled_dot_opcheck(solution, a, b, scale):
    """What opcheck's tests look at (judge/worker/opobserve.py), with the schema they compare against; the
    checker decides each test (judge/checker/opchecks.py)."""
    return {"schema": _schema_of(OP), "data": _opcheck_data(_op(), (a, b, scale))}


def scaled_dot_compiled_autocast(solution, a, b, scale):
    """A function calling the op, compiled with fullgraph=True (aot_eager), run under autocast."""
    op = _op()

    def f(x, y):
        return op(x, y, scale) * 1.0

    compiled = _compile(f, fullgraph=True, backend="aot_eager", dynamic=False)
    with _autocast("cpu", dtype=torch.bfloat16):
        out = compiled(a, b)
    return {"out": _t.plain(out), **_describe(out)}
