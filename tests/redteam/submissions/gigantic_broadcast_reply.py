# expect: wrong_answer
"""Attack: answer a probe with a tensor of 10^12 elements that fits in a few bytes: a stride-0
view of one float (torch.zeros(1).expand(10**6, 10**6)), written straight onto the channel from
inside the first kv_write call, before the real reply. A checker that materialised it (clone,
comparison, printing) would allocate 4 TB. It must be refused (runtime_error), and neither the
checker nor the judge may grow. The worker's guard now refuses every route to the channel, so the frame
is never sent and the honest, wrong part is judged: wrong_answer; the checker's own refusal is
tested alone in tests/judge/test_replies.py."""

import gc
import io
import os
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


_sent = []


def _huge():
    return torch.zeros(1).expand(10**6, 10**6)


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    if not _sent:
        _sent.append(1)
        buf = io.BytesIO()
        torch.save({"ok": {"returned": None, "k_cache": _huge(), "v_cache": _huge(), "slots": slots,
                           "k": k, "v": v}}, buf)
        try:
            _send_frame(buf.getvalue())
        except PermissionError as exc:  # the worker's guard: no route to the channel
            print(f"refused: {exc}")
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * weight  # wrong: never normalises


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)
