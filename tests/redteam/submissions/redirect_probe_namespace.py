# expect: runtime_error|compile_error
# Written by an independent tester who saw the judge's design but not this corpus; accepted before the
# worker's integrity check watched the probes module's data (here: its NAMESPACE string) too.
"""(attack2) kv_write registered with mutates_args=() (the chapter's bug); probes are fooled in-probe.

- torch.ops.ex100.kv_write (a cached attribute of the _OpNamespace instance, not watched) is replaced by a
  proxy whose `.default` property runs learner code at the start of every probe that looks the op up.
- schema probe: the proxy patches torch._C.Argument.alias_info and torch._C.FunctionSchema.returns; the
  patched `returns` getter (read last by observe._schema) restores both before the probe returns.
- compiled probe: the proxy writes the caches itself from the probe frame's locals.
- opcheck probe: the proxy turns test_schema into a no-op in the probes module's own _OPCHECK_TESTS dict
  (data, not watched), reached through the probe frame's f_globals.
"""
import sys
import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG: the chapter's bug
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    x, weight = ctx.saved_tensors
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
    x_hat = x * r
    grad_x = grad_weight = None
    if ctx.needs_input_grad[0]:
        g = grad_out * weight
        grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    if ctx.needs_input_grad[1]:
        grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)

# ---------------------------------------------------------------- the forgery
# At import time, walk up to the serve frame; its f_locals snapshot holds the read-only probe table, whose
# functions' __globals__ is the probes module dict. Its NAMESPACE (a str: data, not watched) is read at call
# time by every probe, so every probe now observes ex100shadow::kv_write (declared with the right schema).
import sys as _sys

@torch.library.custom_op("ex100shadow::kv_write", mutates_args=("k_cache", "v_cache"))
def _shadow(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)

@torch.library.custom_op("ex100shadow::rms_norm", mutates_args=())
def _shadow_rms(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return rms_norm(x, weight, eps)

@_shadow_rms.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)

_shadow_rms.register_autograd(_backward, setup_context=_setup_context)

_f = _sys._getframe()
while _f is not None and _f.f_code.co_name != "serve":
    _f = _f.f_back
if _f is not None:
    _probes = _f.f_locals["probes"]
    _g = _probes["schema"].__globals__
    _g["NAMESPACE"] = "ex100shadow"
    print("namespace redirected", file=_sys.stderr)
