"""Valid: the low-level route: torch.library.Library, define, impl at CPU, register_fake."""

import math

import numpy as np
import torch
from torch import Tensor


@torch._dynamo.disable
def opaque_gelu(x: torch.Tensor) -> torch.Tensor:
    a = x.detach().to(torch.float32).cpu().numpy()
    y = 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))
    return torch.from_numpy(y).to(dtype=x.dtype, device=x.device)


_lib = torch.library.Library("ex106", "DEF")
_lib.define("gelu(Tensor x) -> Tensor")


def _gelu_cpu(x):
    return opaque_gelu(x)


_lib.impl("gelu", _gelu_cpu, "CPU")


@torch.library.register_fake("ex106::gelu")
def _(x):
    return x.new_empty(x.shape)


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.ops.ex106.gelu(x @ w1) @ w2
