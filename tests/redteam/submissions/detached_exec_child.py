# expect: wrong_answer
# needs: pidns|cgroup
"""Attack: start detached programs (new session, double fork, exec) that outlive the worker:
/bin/sh running sleep, and a fresh Python interpreter. Both carry the canary on their command
line and write a marker file in /tmp once they wake up."""

import os
import subprocess
import sys

import torch
from torch import Tensor

CANARY = "@@CANARY@@"
_marker = f"/tmp/rt-{CANARY}-exec"

try:
    subprocess.Popen(["/bin/sh", "-c", f"sleep 20; echo {CANARY} > {_marker}-sh"], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
except OSError:
    pass

_pid = os.fork()
if _pid == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            os.closerange(3, 4096)
            os.execv(sys.executable, [sys.executable, "-c",
                                      f"import time; time.sleep(20); open({_marker + '-py'!r}, 'w').write({CANARY!r})"])
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
