# expect: wrong_answer
# expect-message: the backward is not reentrant
"""The backward scales its result by a counter of its own calls (a cache that drifts, in real code): every gradient
is right to 1e-13, but two runs of the backward on the same graph differ, which gradcheck's reentrancy check
refuses."""

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
    d = x.shape[-1] // 2
    return x.new_empty((*x.shape[:-1], d))


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


_calls = [0]


def _backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    _calls[0] += 1  # WRONG: the result depends on how often the backward ran before
    grad_out = grad_out * (1.0 + 1e-13 * _calls[0])
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    s = torch.sigmoid(a)
    grad_a = grad_out * b * (s * (1 + a * (1 - s)))   # d silu(a) / da = s + a * s * (1 - s)
    grad_b = grad_out * (a * s)
    return torch.cat([grad_a, grad_b], dim=-1)


silu_and_mul.register_autograd(_backward, setup_context=_setup_context)
