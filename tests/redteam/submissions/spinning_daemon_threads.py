# expect: wrong_answer|compile_error
"""Attack: daemon threads that spin forever next to the probes (one in Python holding the GIL
half the time, one in torch's C++ kernels, which release it).

The worker must still answer (slowly), get its wrong_answer, and take the threads with it when
it ends: no thread or process may outlive the judgement. A CPU cgroup keeps the spin from
starving other judgements."""

import threading

import torch
from torch import Tensor


def _spin_python():
    n = 0
    while True:
        n += 1


def _spin_torch():
    a = torch.randn(256, 256)
    while True:
        a = torch.tanh(a @ a)


threading.Thread(target=_spin_python, name="spin-@@CANARY@@", daemon=True).start()
threading.Thread(target=_spin_torch, name="spin-torch-@@CANARY@@", daemon=True).start()

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
