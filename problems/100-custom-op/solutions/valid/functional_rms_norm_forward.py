"""The forward calls torch.nn.functional.rms_norm (the same formula); kv_write uses
index_copy_ through a loop over the two caches; the backward saves rsqrt in setup_context."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    for cache, rows in ((k_cache, k), (v_cache, v)):
        cache.index_copy_(0, slots, rows)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return x.new_empty(x.shape)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    ctx.save_for_backward(x, weight, r)


def _backward(ctx, grad_out):
    x, weight, r = ctx.saved_tensors
    d = x.shape[-1]
    g = grad_out * weight
    grad_x = g * r - x * r.pow(3) * (g * x).sum(-1, keepdim=True) / d
    grad_weight = (grad_out * x * r).reshape(-1, d).sum(0) if ctx.needs_input_grad[1] else None
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
