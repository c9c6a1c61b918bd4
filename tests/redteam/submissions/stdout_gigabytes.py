# expect: output_limit_exceeded
"""Attack: print 2 GiB on stdout at import (the limit is 1 MiB), through Python and os.write.
The judge must stop it early and keep only a bounded tail, without growing its own memory."""

import os
import sys

import torch
from torch import Tensor

_line = ("@@CANARY@@ " * 100 + "\n") * 1024
for _ in range(10_000):
    sys.stdout.write(_line)
    os.write(1, _line.encode())

# ---------------------------------------------------------------- wrong ops (the honest part of this file)

@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * weight  # wrong: never normalises (and no backward is registered)


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
