# expect: wrong_answer
# needs: pidns|cgroup
"""Attack: leave a detached grandchild behind (fork, setsid, fork again: a new session, reparented
to init, out of the worker's process group).

It closes every inherited descriptor, waits until the judgement is over (its scratch folder
disappears, or 25 s), then writes marker files in /tmp and next to the scratch folder and lingers
30 s more. Killing the worker's process group misses it; a pid namespace (its init dies, the
kernel kills the rest) or a cgroup kill does not."""

import os
import time

import torch
from torch import Tensor

CANARY = "@@CANARY@@"


def _grandchild():
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, 4096)
    scratch = os.getcwd()
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline and os.path.exists(os.path.join(scratch, "solution.py")):
        time.sleep(0.05)
    for folder in ("/tmp", os.path.dirname(scratch)):
        try:
            with open(os.path.join(folder, f"rt-{CANARY}-grandchild"), "w") as fh:
                fh.write(f"{CANARY} survived the judgement as pid {os.getpid()}\n")
        except OSError:
            pass
    time.sleep(30)


_pid = os.fork()
if _pid == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            _grandchild()
    finally:
        os._exit(0)
os.waitpid(_pid, 0)

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
