# expect: wrong_answer
# expect-message: calling rms_norm on the meta device failed (no fake implementation, or a fake that reads data?): RuntimeError: There was no fake impl registered
"""rms_norm has no fake implementation."""

import torch
from torch import Tensor


# ---------------------------------------------------------------- kv_write

@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    """Write row i of k / v into row slots[i] of k_cache / v_cache, in place."""
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    # Nothing to allocate and nothing to return: the schema already says which inputs change.
    return None


# ---------------------------------------------------------------- rms_norm

@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    """x * rsqrt(mean(x^2, dim=-1, keepdim=True) + eps) * weight, a new tensor."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight




def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    x, weight = ctx.saved_tensors
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
    x_hat = x * r
    grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    g = grad_out * weight
    grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
