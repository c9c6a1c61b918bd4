"""Control messages between a zygote and its client: length-prefixed JSON over a unix stream socket, fds attached.

A stream socket, not SOCK_SEQPACKET, because macOS has no SEQPACKET for unix sockets; the fds of a
message travel with its first bytes.
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Sequence

MAX_CONTROL = 64 * 1024
MAX_FDS = 4
HEADER = struct.Struct("!I")


def send(sock: socket.socket, message: dict, fds: Sequence[int] = ()) -> None:
    data = json.dumps(message, ensure_ascii=False).encode("utf-8", "replace")
    if len(data) > MAX_CONTROL:
        raise ValueError(f"control message too large ({len(data)} bytes)")
    frame = HEADER.pack(len(data)) + data
    sent = socket.send_fds(sock, [frame], list(fds))
    if sent < len(frame):
        sock.sendall(frame[sent:])


def recv(sock: socket.socket) -> tuple[dict | None, list[int]]:
    """One message and its fds; (None, []) when the peer has gone."""
    head, fds = b"", []
    while len(head) < HEADER.size:
        chunk, more, _flags, _addr = socket.recv_fds(sock, HEADER.size - len(head), MAX_FDS)
        fds += more
        if not chunk:
            return None, fds
        head += chunk
    (size,) = HEADER.unpack(head)
    if size > MAX_CONTROL:
        raise ValueError(f"control message too large ({size} bytes)")
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            return None, fds
        body += chunk
    return json.loads(body), fds
