# expect: memory_limit_exceeded|wrong_answer
# needs: memcg|mount
"""Attack: fill /dev/shm with 2.5 GiB (more than the worker's 2 GiB) in 192 MiB files, below the
file-size rlimit, at import.

An address-space rlimit does not see tmpfs pages. Either a memory cgroup charges them to the
worker (memory_limit_exceeded) or a private, size-capped /dev/shm refuses them (ENOSPC: the file
then carries on to its wrong answer). Nothing may remain in the host's /dev/shm."""

import torch
from torch import Tensor

_chunk = b"\x5a" * (64 << 20)
_written = 0
try:
    for _n in range(14):
        with open(f"/dev/shm/rt-@@CANARY@@-{_n}", "wb") as _fh:
            for _ in range(3):
                _fh.write(_chunk)
                _fh.flush()
                _written += len(_chunk)
                if _written >= (5 << 29):
                    raise StopIteration
except (OSError, StopIteration):
    pass
print("wrote", _written >> 20, "MiB to /dev/shm", flush=True)

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
