"""Probes for exercise 101: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``: it creates ``solution.OpCounter()`` or calls
``solution.count_sdpa_ops``, runs one of the small programs below while the counter is active,
and returns plain observations (the counts as a dict, the program's outputs, gradients). The
checker runs the very same programs under its own TorchDispatchMode and decides pass or fail;
nothing here knows an expected value.

Probes are not secret: reading them shows exactly how your code is exercised.
"""

import types
from collections.abc import Mapping as _Mapping

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode as _TorchDispatchMode

from judge.worker import tensors as _t

# Bound at import time, before the learner's module is imported, so that a submission which
# replaces these functions afterwards does not change what the probes (and programs) run. What the
# probes observe is read through judge.worker.tensors and by exact types, never an object's attributes.
_type = type
_str, _int, _dict, _tuple, _list, _repr = str, int, dict, tuple, list, repr
_mro = type.__dict__["__mro__"].__get__
_dict_items = dict.items
_is_a = isinstance  # for the counts: the learner's own data, whatever mapping the statement allows
_sdpa = F.scaled_dot_product_attention
_linear = F.linear
_silu = F.silu
_rsqrt = torch.rsqrt
_div = torch.div
_arange = torch.arange
_where = torch.where
_cat = torch.cat


# ---------------------------------------------------------------- programs
# Shared with the checker, which imports this file to run them under its own mode. Each takes
# tensors by keyword and returns a tuple of tensors.


def rmsnorm_linear_silu(x, w, lin):
    """The chapter's example: RMSNorm, then a Linear without bias, then SiLU."""
    h = x * _rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    return (_silu(_linear(h, lin)),)


def mlp(x, w1, b1, w2, b2):
    """A two-layer MLP with biases on a 3-D input."""
    return (_linear(_silu(_linear(x, w1, b1)), w2, b2),)


def mlp_backward(x, w1, b1, w2, b2):
    """The MLP, then out.sum().backward(); returns the output and every gradient."""
    out = _linear(_silu(_linear(x, w1, b1)), w2, b2)
    out.sum().backward()
    return (out.detach(), x.grad, w1.grad, b1.grad, w2.grad, b2.grad)


def keyword_ops(x):
    """aten ops whose keyword-only arguments change the result (rounding_mode, dtype, ...)."""
    floor = _div(x, 0.3, rounding_mode="floor")
    trunc = _div(x, 0.3, rounding_mode="trunc")
    total = x.sum(dtype=torch.float64)
    idx = _arange(x.shape[-1], dtype=torch.int64)
    picked = _where(x > 0, x, x * 0.5).cumsum(-1, dtype=torch.float64)
    return (floor, trunc, total, idx, picked)


def inplace_and_views(x):
    """In-place ops and views (transpose, slicing, view)."""
    y = x.clone()
    y.mul_(2.0).add_(1.0)
    y.relu_()
    z = y.t()[1:].contiguous().view(-1)
    return (y, _cat([z, z.neg()]))


# These run (here under the learner's counter, in the checker under its own mode); what they return is read
# through the accessors below: judge check's reading rule passes over their bodies (judge.problem.probe_rules).
RUN_NOT_READ = ("rmsnorm_linear_silu", "mlp", "mlp_backward", "keyword_ops", "inplace_and_views", "prepare")

PROGRAMS = types.MappingProxyType(
    {  # read-only: a submission must not swap a program
        "rmsnorm_linear_silu": rmsnorm_linear_silu,
        "mlp": mlp,
        "mlp_backward": mlp_backward,
        "keyword_ops": keyword_ops,
        "inplace_and_views": inplace_and_views,
    }
)


def prepare(inputs, grad=()):
    """The program's keyword arguments: the given tensors, the ones named in ``grad`` turned
    into leaf tensors that require grad (requires_grad does not survive the channel)."""
    args = dict(inputs)
    for name in grad:
        args[name] = args[name].detach().requires_grad_(True)
    return args


# ---------------------------------------------------------------- helpers (not probes)


def _outputs(out):
    if _type(out) is not _tuple:
        return None
    return [_t.plain(t) for t in out]


def _read_counts(counts):
    """A learner's counts as plain data: {"type", "is_mapping", "counts": {str: int}, "bad": [...]}.

    Any mapping from str to int is accepted (a Counter, a dict, ...). Entries whose key is not a
    str or whose value is not an int are reported in ``bad`` as {"key", "key_type", "value",
    "value_type"} (reprs and type names); entries with a count of 0 are dropped (a Counter treats
    them as absent)."""
    a_dict = _dict in _mro(_type(counts))  # a dict or a subclass (Counter, defaultdict): read with dict's own items
    obs = {
        "type": _t.type_name(counts).rpartition(".")[2],
        "has_counts": True,
        "is_mapping": a_dict or _is_a(counts, _Mapping),
        "counts": {},
        "bad": [],
    }
    if not obs["is_mapping"]:
        return obs
    for key, value in _list(_dict_items(counts) if a_dict else counts.items()):
        if _type(key) is not _str or _type(value) is not _int:
            obs["bad"].append(
                {
                    "key": _repr(key)[:60],
                    "key_type": _t.type_name(key),
                    "value": _repr(value)[:40],
                    "value_type": _t.type_name(value),
                }
            )
        elif value != 0:
            obs["counts"][key] = value
        if len(obs["bad"]) >= 3:
            break
    return obs


def _counter_counts(counter):
    if not hasattr(counter, "counts"):
        return {"type": "", "has_counts": False, "is_mapping": False, "counts": {}, "bad": []}
    return _read_counts(counter.counts)


def _is_dispatch_mode(counter):
    """Whether the counter's class derives from TorchDispatchMode, read from its type's own MRO."""
    return _TorchDispatchMode in _mro(_type(counter))


# ---------------------------------------------------------------- probes: OpCounter


def new_counter(solution):
    """Create one OpCounter and describe it before it has seen anything."""
    counter = solution.OpCounter()
    return {"is_dispatch_mode": _is_dispatch_mode(counter), "counts": _counter_counts(counter)}


def count_program(solution, name, inputs, grad=()):
    """Run PROGRAMS[name] once inside one fresh OpCounter."""
    args = prepare(inputs, grad)
    counter = solution.OpCounter()
    with counter:
        out = PROGRAMS[name](**args)
    return {"counts": _counter_counts(counter), "outputs": _outputs(out)}


def two_counters_in_a_row(solution, name, inputs):
    """Two OpCounters, one after the other, each around one run of the program."""
    first = solution.OpCounter()
    with first:
        PROGRAMS[name](**prepare(inputs))
    second = solution.OpCounter()
    fresh = _counter_counts(second)
    with second:
        PROGRAMS[name](**prepare(inputs))
    return {"first": _counter_counts(first), "second_fresh": fresh, "second": _counter_counts(second)}


def reused_counter(solution, name, inputs, times):
    """One OpCounter entered ``times`` times, the program run once per ``with`` block, with the
    same program also run before, between and after the blocks (outside the counter)."""
    counter = solution.OpCounter()
    PROGRAMS[name](**prepare(inputs))
    for _ in range(times):
        with counter:
            PROGRAMS[name](**prepare(inputs))
        PROGRAMS[name](**prepare(inputs))
    return {"counts": _counter_counts(counter)}


def nested_counters(solution, outer_program, outer_inputs, inner_program, inner_inputs):
    """with outer: run outer_program; with inner: run inner_program."""
    outer, inner = solution.OpCounter(), solution.OpCounter()
    with outer:
        out_outer = PROGRAMS[outer_program](**prepare(outer_inputs))
        with inner:
            out_inner = PROGRAMS[inner_program](**prepare(inner_inputs))
    return {
        "outer": _counter_counts(outer),
        "inner": _counter_counts(inner),
        "outer_outputs": _outputs(out_outer),
        "inner_outputs": _outputs(out_inner),
    }


# ---------------------------------------------------------------- probes: count_sdpa_ops


def count_sdpa(solution, q, k, v, options):
    """count_sdpa_ops(q, k, v, **options). With options["backward"] true, q, k and v are first
    made leaf tensors that require grad; their .grad afterwards is returned."""
    backward = options.get("backward", False) is True
    if backward:
        q, k, v = (_t.leaf(t) for t in (q, k, v))
    result = solution.count_sdpa_ops(q, k, v, **options)
    return {"counts": _read_counts(result), "grads": [_t.plain(_t.grad(t)) for t in (q, k, v)] if backward else None}
