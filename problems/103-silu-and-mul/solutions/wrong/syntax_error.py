# expect: compile_error
"""Wrong: a syntax error (a missing colon)."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]
