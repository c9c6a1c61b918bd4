"""Events from the checker to the judge: one JSON object per line over a stream socket."""

from __future__ import annotations

import json
import socket


class EventWriter:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def send(self, event: dict) -> None:
        # errors="replace": a lone surrogate that slipped through must not break the checker's report
        self.sock.sendall(json.dumps(event, ensure_ascii=False).encode("utf-8", "replace") + b"\n")


def read_events(sock: socket.socket, max_line: int = 1 << 20):
    """Yield events until the checker closes its end; a line over max_line ends the stream."""
    buf = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield json.loads(line)
        if len(buf) > max_line:
            raise ValueError("checker event line too long")
