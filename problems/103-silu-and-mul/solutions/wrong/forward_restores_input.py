# expect: wrong_answer
# expect-message: its values put back
"""The forward halves x in place and doubles it back (to reuse its memory for the gate): the output is right and
x ends with its values, but x was written, which the schema (mutates_args=()) says never happens: torch's opcheck
fails it too."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    """silu(x[..., :d]) * x[..., d:] for a last dimension of 2d; a new tensor [..., d]."""
    d = x.shape[-1] // 2
    x.mul_(0.5)  # WRONG: writes the input, then puts it back below
    gate = F.silu(x[..., :d] * 2.0)
    x.mul_(2.0)
    return gate * x[..., d:]


@silu_and_mul.register_fake
def _(x):
    # Only shapes: keep every leading dimension, halve the last one. The sizes may be
    # symbolic under torch.compile(dynamic=True), so never turn them into Python ints.
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
