# expect: wrong_answer
# expect-message: give it the operator's default (eps=1e-6)
"""The fake for rms_norm is def _(x, weight, eps) without the default: PyTorch drops an argument
equal to its default before calling the fake, so rms_norm(x, w) (or eps=1e-6) on meta / fake
tensors raises TypeError. The fake needs the same signature, eps=1e-6 included."""

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    xf = x.float() if x.dtype == torch.bfloat16 else x
    wf = weight.float() if weight.dtype == torch.bfloat16 else weight
    r = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xf * r * wf).to(x.dtype)

@rms_norm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)

def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps

def _backward(ctx, grad):
    x, weight = ctx.saved_tensors
    dt = x.dtype
    cd = torch.float32 if dt == torch.bfloat16 else dt
    xf, wf, g = x.to(cd), weight.to(cd), grad.to(cd)
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + ctx.eps)
    gw = g * wf
    gx = r * gw - xf * r.pow(3) * (gw * xf).mean(-1, keepdim=True)
    gweight = (g * xf * r).reshape(-1, x.shape[-1]).sum(0)
    return gx.to(dt), gweight.to(weight.dtype), None

rms_norm.register_autograd(_backward, setup_context=_setup_context)
