# expect: wrong_answer
# expect-message: the output is not a contiguous tensor with storage offset 0
"""The kernel returns a strided view (a transposed copy, transposed back) and the fake describes the very same
strides: fake and real agree, so opcheck's comparison passes, but the statement asks for a contiguous output with
storage offset 0, which an eager call shows this is not."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    """silu(x[..., :d]) * x[..., d:] for a last dimension of 2d; a new tensor [..., d]."""
    d = x.shape[-1] // 2
    out = F.silu(x[..., :d]) * x[..., d:]
    return out.mT.contiguous().mT if out.dim() >= 2 else out  # WRONG: column-major strides


@silu_and_mul.register_fake
def _(x):
    d = x.shape[-1] // 2
    out = x.new_empty((*x.shape[:-1], d))
    return out.mT.contiguous().mT if out.dim() >= 2 else out  # the same strides as the kernel's


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
