# expect: runtime_error
"""Attack: os._exit(0) in the middle of a probe (the first call of kv_write), after the
registration and schema checks have already passed."""

import os

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    os._exit(0)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    os._exit(0)


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
