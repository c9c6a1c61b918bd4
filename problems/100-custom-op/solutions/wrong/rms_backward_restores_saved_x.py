# expect: wrong_answer
# expect-message: x or weight changed after the forward and backward
"""The backward scales the saved x in place and back (to reuse its memory): the gradients are right and x ends
with its values, but the caller's x was written during the backward (torch's gradcheck and opcheck fail it too)."""

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

@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    # y = x_hat * weight with x_hat = x * r, r = rsqrt(mean(x^2) + eps):
    #   d weight = sum over all leading dims of grad_out * x_hat
    #   d x      = r * (g - x_hat * mean(g * x_hat)),  g = grad_out * weight
    x, weight = ctx.saved_tensors
    x.mul_(2.0)  # WRONG: writes the saved input (the caller's x) in place, then puts it back
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) / 4.0 + ctx.eps)
    x.div_(2.0)
    x_hat = x * r
    grad_x = grad_weight = None
    if ctx.needs_input_grad[0]:
        g = grad_out * weight
        grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    if ctx.needs_input_grad[1]:
        grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x, grad_weight, None  # eps is a float: no gradient


rms_norm.register_autograd(_backward, setup_context=_setup_context)
