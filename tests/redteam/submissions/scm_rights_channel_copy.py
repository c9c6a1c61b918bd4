# expect: wrong_answer
"""Attack: make a fresh socketpair with `_socket.socketpair()` (no socket.__new__ audit event), send the
channel's descriptor number over it in an SCM_RIGHTS message and receive an unfenced, inheritable copy; then
serve the checker's requests itself with forged probes. Refused: seccomp denies new sockets in the worker,
and the guard refuses socket.sendmsg outside its own send."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import array
import os
import socket
import stat

import _socket


def _channel_fd():
    for fd in range(3, 1 << 16):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


def _duplicate():
    fd = _channel_fd()
    a, b = _socket.socketpair()
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    msg, anc, flags, addr = b.recvmsg(1, socket.CMSG_SPACE(4))
    copy = array.array("i", anc[0][2])[0]
    os.write(copy, b"\0" * 8)  # a frame header: if this lands, the channel is ours
    print(f"route SCM_RIGHTS: TAKEN (copy {copy})", file=sys.stderr)


def _pidfd():
    fd = _channel_fd()
    pidfd = os.pidfd_open(os.getpid())
    import ctypes  # refused by the guard, too
    print(f"route pidfd: {pidfd} {fd}", file=sys.stderr)


_try("SCM_RIGHTS", _duplicate)
_try("pidfd_getfd", _pidfd)
