# expect: wrong_answer
"""The backward lives in a torch.autograd.Function wrapped around the op in Python, instead of
being registered with torch.library.register_autograd.

Calling the Python wrapper works, but torch.ops.ex100.rms_norm itself has no autograd formula:
the dispatcher (and everything that goes through it: torch.compile, other people's code) cannot
differentiate it."""

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def _rms_norm_op(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@_rms_norm_op.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


class _RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return _rms_norm_op(x, weight, eps)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
        x_hat = x * r
        grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
        g = grad_out * weight
        grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return grad_x, grad_weight, None


def rms_norm(x, weight, eps=1e-6):
    return _RMSNormFunction.apply(x, weight, eps)
