# expect: runtime_error|wrong_answer
# needs: pidns|uid
"""Attack: os.kill(os.getppid(), SIGKILL) at import: the worker's parent is the warm worker zygote.

Without isolation the zygote dies and the judgement turns into the judge's own fault
(internal_error) and a restart for every later learner. A pid namespace makes the parent
invisible (getppid() == 0: the kill then hits the worker's own group, runtime_error); a dropped
uid makes it EPERM (the file then carries on to its wrong answer)."""

import os
import signal

import torch
from torch import Tensor

_parent = os.getppid()
if _parent > 1:
    try:
        os.kill(_parent, signal.SIGKILL)
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
