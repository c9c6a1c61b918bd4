# expect: wrong_answer
# needs: ipc
"""Attack: System V shared memory that outlives the process: four 256 MiB segments (under the 2 GiB
limit), attached, written, detached and never removed (no IPC_RMID), at import.

Without an IPC namespace the segments stay on the host after the worker is gone, holding 1 GiB of
RAM nobody owns; a private IPC namespace takes them with it. The key is derived from the canary
(int(canary[2:10], 16)) so that the test can find its own segments."""

import subprocess
import sys

import torch
from torch import Tensor

# The worker's guard refuses ctypes in this process; a fresh interpreter started from here has no
# such guard (its limits are the sandbox's: the IPC namespace, the cgroup, seccomp).
_LEAK = """
import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_key = int("@@CANARY@@"[2:10], 16) & 0x7FFFFFFF
for _i in range(4):
    _id = _libc.shmget(_key + _i, 256 << 20, 0o1000 | 0o600)  # IPC_CREAT | 0600
    if _id < 0:
        continue
    _addr = _libc.shmat(_id, None, 0)
    if _addr not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(_addr, 0x5A, 256 << 20)
        _libc.shmdt(ctypes.c_void_p(_addr))
"""
subprocess.run([sys.executable, "-c", _LEAK], timeout=60, check=False)

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
