# expect: wrong_answer
"""Wrong: silu(inplace=True) overwrites x and the schema honestly says so (Tensor(a!) x), but
the exercise asks for a functional op that leaves x alone (and has a backward)."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=("x",))
def silu_and_mul(x: Tensor) -> Tensor:
    """silu(x[..., :d]) * x[..., d:] for a last dimension of 2d; a new tensor [..., d]."""
    d = x.shape[-1] // 2
    return F.silu(x[..., :d], inplace=True) * x[..., d:]


@silu_and_mul.register_fake
def _(x):
    # Only shapes: keep every leading dimension, halve the last one. The sizes may be
    # symbolic under torch.compile(dynamic=True), so never turn them into Python ints.
    d = x.shape[-1] // 2
    return x.new_empty((*x.shape[:-1], d))

# register_autograd refuses an operator that writes its input, so there is no backward.
