# expect: wrong_answer
"""Attack: rms_norm's registered backward is wrong (rsqrt(mean(x^2)) treated as a constant), and
the probes that would show it are replaced in the worker's `probes` module (sys.modules["probes"])
by functions that compute the right gradients with plain autograd through the formula.

A probe table reachable from learner code means observations the learner writes. The checker
can only trust what a probe returns if the learner cannot swap the probe."""

import sys

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
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
    grad_weight = (grad_out * x * r).reshape(-1, x.shape[-1]).sum(0)
    return grad_out * weight * r, grad_weight, None  # wrong: r treated as a constant


rms_norm.register_autograd(_backward, setup_context=_setup_context)


# ---------------------------------------------------------------- the forgery

def _formula_grads(x, weight, eps, grad_out):
    x = x.detach().clone().requires_grad_(True)
    w = weight.detach().clone().requires_grad_(True)
    out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
    out.backward(grad_out)
    return out.detach().clone(), x.grad.detach().clone(), w.grad.detach().clone()


def _forged_backward(solution, x, weight, eps, grad_out):
    _, dx, dw = _formula_grads(x, weight, eps, grad_out)
    return {"out_requires_grad": True, "x_grad": dx, "weight_grad": dw}


def _forged_compiled(solution, x, weight, eps, grad_out, backend="aot_eager"):
    out, dx, dw = _formula_grads(x, weight, eps, grad_out)
    return {"out": out, "out_requires_grad": True, "x_grad": dx, "weight_grad": dw}


_probes = sys.modules.get("probes")
if _probes is not None:
    _probes.rms_norm_backward = _forged_backward
    _probes.rms_norm_compiled = _forged_compiled
    _probes.rms_norm_gradcheck = lambda solution, *a, **k: {"passed": True, "message": ""}
