# expect: wrong_answer
"""Wrong: the fake returns a narrowed view of a full-width empty_like: the right shape, dtype and
device, but the strides of x (a strided view), while the real output is contiguous; opcheck's
test_faketensor compares strides too."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    """silu(x[..., :d]) * x[..., d:] for a last dimension of 2d; a new tensor [..., d]."""
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


@silu_and_mul.register_fake
def _(x):
    d = x.shape[-1] // 2
    return torch.empty_like(x).narrow(-1, 0, d)


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def _backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    s = torch.sigmoid(a)
    grad_a = grad_out * b * (s * (1 + a * (1 - s)))   # d silu(a) / da = s + a * s * (1 - s)
    grad_b = grad_out * (a * s)
    return torch.cat([grad_a, grad_b], dim=-1)


silu_and_mul.register_autograd(_backward, setup_context=_setup_context)
