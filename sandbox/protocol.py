"""Control messages between a zygote and its client: one JSON object per SEQPACKET datagram, fds attached."""

from __future__ import annotations

import json
import socket

MAX_CONTROL = 64 * 1024
MAX_FDS = 4


def send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message, ensure_ascii=False).encode("utf-8", "replace")
    if len(data) > MAX_CONTROL:
        raise ValueError(f"control message too large ({len(data)} bytes)")
    socket.send_fds(sock, [data], list(fds))


def recv(sock: socket.socket) -> tuple[dict | None, list[int]]:
    """One message and its fds; (None, []) when the peer has gone."""
    data, fds, _flags, _addr = socket.recv_fds(sock, MAX_CONTROL, MAX_FDS)
    if not data:
        return None, fds
    return json.loads(data), fds
