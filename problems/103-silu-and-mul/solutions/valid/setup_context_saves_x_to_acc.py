"""Valid: setup_context saves x.to(acc), the dtype the backward computes in (float32 for bfloat16,
x's own dtype otherwise). For float32 and float64 inputs .to() returns x itself, which is fine:
the saved tensor is only read by the backward."""

import torch
import torch.nn.functional as F
from torch import Tensor


def _acc_dtype(dtype):
    return torch.float32 if dtype == torch.bfloat16 else dtype


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    d = x.shape[-1] // 2
    xa = x.to(_acc_dtype(x.dtype))
    return (F.silu(xa[..., :d]) * xa[..., d:]).to(x.dtype)


@silu_and_mul.register_fake
def _(x):
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2))


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x.to(_acc_dtype(x.dtype)))
    ctx.in_dtype = x.dtype


def _backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    g = grad_out.to(x.dtype)
    s = torch.sigmoid(a)
    grad = torch.cat([g * b * s * (1 + a * (1 - s)), g * a * s], dim=-1)
    return grad.to(ctx.in_dtype)


silu_and_mul.register_autograd(_backward, setup_context=_setup_context)
