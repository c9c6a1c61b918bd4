# expect: time_limit_exceeded
"""Attack: rms_norm never returns (a pure-Python busy loop inside a probe).

The registration and kv_write cases pass first; the first rms_norm call spins until the
judgement's wall limit. Every remaining case must still be reported, as time_limit_exceeded."""

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    n = 0
    while True:
        n += 1


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
