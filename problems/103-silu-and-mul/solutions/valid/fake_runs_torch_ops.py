"""Valid: the fake runs the same torch ops on fake tensors (shapes only, no data read); the
backward is registered with torch.library.register_autograd on the op's qualified name."""

import torch
import torch.nn.functional as F
from torch import Tensor


def _compute(x):
    n = x.shape[-1] // 2
    return F.silu(x.narrow(-1, 0, n)) * x.narrow(-1, n, n)


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    return _compute(x)


@torch.library.register_fake("ex103::silu_and_mul")
def _(x):
    return _compute(x)


def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    n = x.shape[-1] // 2
    a, b = x.narrow(-1, 0, n), x.narrow(-1, n, n)
    s = torch.sigmoid(a)
    return torch.cat([grad * b * (s + a * s * (1 - s)), grad * F.silu(a)], dim=-1)


torch.library.register_autograd("ex103::silu_and_mul", _backward, setup_context=_setup)
