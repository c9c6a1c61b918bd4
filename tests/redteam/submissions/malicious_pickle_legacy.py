# expect: wrong_answer
"""Attack: like malicious_pickle_zip, but the frame is a bare (non-zip) pickle, which torch.load
routes through its legacy loader: that path must be as strict as the zip one. The worker's guard
now refuses every route to the channel, so the honest, wrong part is judged: wrong_answer."""

import gc
import os
import pickle
import socket
import stat
import struct

import torch
from torch import Tensor

def _channel_socket():
    """The worker's end of its channel: the Channel object if gc finds it, else the first stream socket fd."""
    for obj in gc.get_objects():
        if type(obj).__name__ == "Channel" and isinstance(getattr(obj, "sock", None), socket.socket):
            return obj.sock
    for fd in range(3, 4096):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                s = socket.socket(fileno=os.dup(fd))
                if s.family == socket.AF_UNIX and s.type == socket.SOCK_STREAM:
                    return s
                s.close()
        except OSError:
            pass
    return None


def _send_frame(data):
    sock = _channel_socket()
    if sock is not None:
        sock.sendall(struct.pack("!Q", len(data)) + data)


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo @@CANARY@@ > /tmp/rt-@@CANARY@@-pickle-ran",))


try:
    _send_frame(pickle.dumps({"import": "ok", "x": _Evil()}, protocol=2))
except PermissionError as _exc:  # the worker's guard: no route to the channel
    print(f"refused: {_exc}")

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
