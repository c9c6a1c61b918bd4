# expect: memory_limit_exceeded
# safety: memory
"""Attack: grow memory 128 MiB at a time (each chunk written, so the pages are real) towards
30 GiB, inside a probe. An address-space rlimit and a memory cgroup must both end it as
memory_limit_exceeded, not as a crash of the judge."""

import torch
from torch import Tensor

_hog = []


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    while len(_hog) < 240:
        _hog.append(b"\x01" * (128 << 20))
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
