# expect: runtime_error|wrong_answer
# safety: pidns, uid
"""Attack: kill(-1, SIGKILL): every process this one may signal.

As root without isolation that is the whole machine, so the test only runs it where a pid
namespace and a dropped uid are both active. Inside them it can reach only the worker's own
processes: the worker dies (runtime_error) or survives as its namespace's init (wrong_answer)."""

import os
import signal

import torch
from torch import Tensor

try:
    os.kill(-1, signal.SIGKILL)
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
