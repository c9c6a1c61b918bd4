"""bfloat16 (and other low-precision) inputs are computed in float32 internally and the result
is cast back to x's dtype; the schema is written out explicitly with custom_op(schema=...)."""

import torch
from torch import Tensor


@torch.library.custom_op(
    "ex100::kv_write",
    mutates_args=("k_cache", "v_cache"),
    schema="(Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor slots, Tensor k, Tensor v) -> ()",
)
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


def _compute_dtype(t):
    return torch.float32 if t.dtype in (torch.bfloat16, torch.float16) else t.dtype


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    ct = _compute_dtype(x)
    xf, wf = x.to(ct), weight.to(ct)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * wf).to(x.dtype)


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    x, weight = ctx.saved_tensors
    ct = _compute_dtype(x)
    xf, wf, gf = x.to(ct), weight.to(ct), grad_out.to(ct)
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + ctx.eps)
    x_hat = xf * r
    g = gf * wf
    grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    grad_weight = (gf * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x.to(x.dtype), grad_weight.to(weight.dtype), None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
