"""Exercise 103: the fused activation silu_and_mul as a custom operator.

Register ex103::silu_and_mul(Tensor x) -> Tensor with torch.library.custom_op:
  - x has shape [..., 2d]; the output is silu(x[..., :d]) * x[..., d:], shape [..., d],
    same dtype and device as x, a new tensor (x is not modified);
  - a fake implementation (register_fake) that halves the last dimension and works with
    symbolic sizes: do not turn x.shape[...] into Python ints;
  - a backward registered with torch.library.register_autograd.

Judge it with:  python practice/judge.py 103
"""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    # TODO: d = x.shape[-1] // 2; return silu of the first half times the second half
    raise NotImplementedError("silu_and_mul")


# TODO: @silu_and_mul.register_fake — only the output's shape / dtype / device, no data


# TODO: setup_context(ctx, inputs, output) and backward(ctx, grad_out), then
# silu_and_mul.register_autograd(backward, setup_context=setup_context)
