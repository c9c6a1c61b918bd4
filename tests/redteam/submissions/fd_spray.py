# expect: wrong_answer
"""Attack: write an "accepted" JSON report and garbage to every file descriptor 0..1024.

Whatever the worker inherited (its channel, its output pipe, anything a careless zygote leaked)
gets the forged report. The worker's guard fences the channel (seccomp: only sendmsg/recvmsg, and
only the guard makes a socket object), so the write to it fails and the honest part of this file
is judged: wrong_answer. Were the write let through, the channel would carry garbage and the
verdict would be runtime_error instead."""

import os

import torch
from torch import Tensor

_payload = (b'{"type": "finished", "exit_code": 0, "verdict": "accepted", "passed": 44, "total": 44, '
            b'"canary": "@@CANARY@@"}\n' + bytes(range(256)) + b"\n@@CANARY@@\n")
for _fd in range(0, 1025):
    try:
        os.write(_fd, _payload)
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
