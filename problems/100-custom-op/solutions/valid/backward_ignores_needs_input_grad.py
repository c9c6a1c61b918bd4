"""The backward always returns both gradients (ignores ctx.needs_input_grad); setup_context
saves the output and the inverse rms instead of recomputing them."""

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=["k_cache", "v_cache"])
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@torch.library.register_fake("ex100::rms_norm")
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    ctx.save_for_backward(x * r, weight, r)


def _backward(ctx, grad_out):
    x_hat, weight, r = ctx.saved_tensors
    g = grad_out * weight
    grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    grad_weight = grad_out.mul(x_hat).reshape(-1, x_hat.shape[-1]).sum(0)
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
