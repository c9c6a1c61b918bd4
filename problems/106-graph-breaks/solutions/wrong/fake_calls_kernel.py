# expect: wrong_answer
# expect-message: the fake runs the real computation
"""Wrong: the fake runs opaque_gelu, which reads data that a fake tensor does not have."""

import math

import numpy as np
import torch
from torch import Tensor


@torch._dynamo.disable
def opaque_gelu(x: torch.Tensor) -> torch.Tensor:
    a = x.detach().to(torch.float32).cpu().numpy()
    y = 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))
    return torch.from_numpy(y).to(dtype=x.dtype, device=x.device)


@torch.library.custom_op("ex106::gelu", mutates_args=())
def gelu(x: Tensor) -> Tensor:
    """Opaque to Dynamo as a whole: the compiled graph holds one node ex106::gelu and never looks inside."""
    return opaque_gelu(x)


@gelu.register_fake
def _(x):
    return opaque_gelu(x)


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.ops.ex106.gelu(x @ w1) @ w2
