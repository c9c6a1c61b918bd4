"""No register_fake for kv_write: for an operator that only mutates its inputs and returns
nothing, torch.library.custom_op provides the fake implementation itself. The fake for
rms_norm recomputes the formula on the fake tensors (legal: it reads no data)."""

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_put_((slots,), k)
    v_cache.index_put_((slots,), v)


def _rms(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return _rms(x, weight, eps)


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return _rms(x, weight, eps)  # same ops on fake tensors: only metadata is computed


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    # Differentiate the plain formula with autograd inside the backward.
    x, weight = ctx.saved_tensors
    with torch.enable_grad():
        x_ = x.detach().requires_grad_(True)
        w_ = weight.detach().requires_grad_(True)
        y = _rms(x_, w_, ctx.eps)
        gx, gw = torch.autograd.grad(y, (x_, w_), grad_out)
    return gx, gw, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
