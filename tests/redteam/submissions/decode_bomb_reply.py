# expect: wrong_answer|runtime_error
"""Attack: hand the checker a reply that costs seconds to decode (8 MiB, then 500 KiB, of the cheapest
pickle opcodes in a torch.save-shaped archive), over every route to the channel it can find, so that the
checker stalls past its deadline. Refused routes leave the honest, wrong kv_write to be judged; a route that
got through is a runtime error (the checker caps and budgets its decoding), never a stalled judgement."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

import io
import os
import socket
import stat
import struct
import zipfile


def _bomb(size):
    body = b"\x80\x02]" + b"Na" * ((size - 4) // 2) + b"."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", body)
        archive.writestr("archive/version", "3\n")
        archive.writestr("archive/byteorder", "little")
    data = buf.getvalue()
    return struct.pack("!Q", len(data)) + data


def _fds():
    for fd in range(3, 1 << 16):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                yield fd
        except OSError:
            continue


for _fd in list(_fds()):
    for _size in (8 << 20, 500 << 10):
        _try(f"os.write {_size}", lambda: os.write(_fd, _bomb(_size)))
        _try(f"socket {_size}", lambda: socket.socket(fileno=_fd).sendall(_bomb(_size)))
