# expect: wrong_answer
# expect-message: the fake reads the input's values
"""Wrong: the fake validates the values, which a fake (or meta) tensor does not have."""

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
    # Only shapes: keep every leading dimension, halve the last one. The sizes may be
    # symbolic under torch.compile(dynamic=True), so never turn them into Python ints.
    if not torch.isfinite(x).all():
        raise ValueError("x has inf or nan")
    d = x.shape[-1] // 2
    return x.new_empty((*x.shape[:-1], d))


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
