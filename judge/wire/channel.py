"""The checker<->worker channel: length-prefixed frames of torch.save bytes, capped, read with weights_only."""

from __future__ import annotations

import contextlib
import io
import signal
import socket
import struct
import threading
import time
import zipfile

import torch

HEADER = struct.Struct("!Q")
MAX_FRAME = 8 << 20  # a few MiB: enough for exercise-sized tensors, too small to flood the checker
# Decoding cost grows with the pickle, not with tensor bytes (those are separate records read in one go):
# torch's weights-only unpickler runs about 0.55 MiB of the cheapest opcodes a second here (an 8 MiB frame
# of them took ~5 s), so a pickle is capped at 512 KiB (~1 s; a probe's honest reply is a few KiB), and the
# checker's decoding also runs under a CPU budget, no longer than what is left of the judgement's deadline.
MAX_PICKLE = 512 << 10
DECODE_BUDGET_S = 2.0


class ChannelClosed(EOFError):
    """The peer closed the channel, sent a frame over the cap, or sent bytes that are not a frame."""


class TooCostly(ChannelClosed):
    """The peer sent a frame whose decoding would cost more than its budget (a decode bomb)."""


class _Overrun(BaseException):
    """Raised by the budget's alarm inside the unpickler (BaseException: no `except Exception` swallows it)."""


def check_archive(data: bytes) -> None:
    """Refuse a frame that would expand when loaded: torch.save writes stored (uncompressed), disjoint
    records, so a compressed, repeated or overlapping record can only be a decompression bomb."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        records = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ChannelClosed(f"peer sent a frame that is not a torch.save archive: {exc}") from exc
    spans = []
    for record in records:
        if record.compress_type != zipfile.ZIP_STORED or record.file_size != record.compress_size:
            raise ChannelClosed("peer sent a compressed record")
        spans.append((record.header_offset, record.header_offset + record.compress_size))
    spans.sort()
    if any(end > start for (_s, end), (start, _e) in zip(spans, spans[1:])):
        raise ChannelClosed("peer sent overlapping records")
    if sum(record.file_size for record in records) > len(data):
        raise ChannelClosed("peer sent records larger than the frame")
    if any(record.filename.endswith("data.pkl") and record.file_size > MAX_PICKLE for record in records):
        raise TooCostly(f"peer sent a pickle over {MAX_PICKLE} bytes: too costly to decode")


def encode(obj, _save=torch.save, _buffer=io.BytesIO, _header=HEADER, _cap=MAX_FRAME, _len=len) -> bytes:
    """One frame: the length header, then torch.save bytes; ValueError over the cap.

    Names are bound at definition: the worker encodes after the learner's code has run."""
    buf = _buffer()
    _save(obj, buf)
    data = buf.getvalue()
    if _len(data) > _cap:
        raise ValueError(f"message of {_len(data)} bytes is over the {_cap}-byte cap")
    return _header.pack(_len(data)) + data


def decode(data: bytes, budget_s: float | None = None):
    """The object in one frame's body (after its header); ChannelClosed for anything that is not a safe frame,
    TooCostly when decoding would take more than `budget_s` CPU seconds (enforced on the main thread)."""
    check_archive(data)
    try:
        with _budget(budget_s):
            return torch.load(io.BytesIO(data), weights_only=True)
    except _Overrun:
        raise TooCostly(f"peer sent a frame that took over {budget_s:.1f} s to decode") from None
    except Exception as exc:
        raise ChannelClosed(f"peer sent an unreadable frame: {type(exc).__name__}") from exc


@contextlib.contextmanager
def _budget(seconds: float | None):
    """A CPU-time alarm (decoding is pure CPU work) that interrupts what runs inside; only on the main thread
    and while SIGVTALRM is unused (SIGALRM is left to pytest-timeout and the like)."""
    usable = (
        seconds is not None
        and threading.current_thread() is threading.main_thread()
        and hasattr(signal, "setitimer")
        and signal.getsignal(signal.SIGVTALRM) in (signal.SIG_DFL, None)
    )
    if not usable or seconds is None:
        yield
        return

    def overrun(_signum, _frame):
        raise _Overrun

    signal.signal(signal.SIGVTALRM, overrun)
    signal.setitimer(signal.ITIMER_VIRTUAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, signal.SIG_DFL)


class Channel:
    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME):
        self.sock = sock
        self.max_frame = max_frame

    def send(self, obj) -> None:
        frame = encode(obj)
        if len(frame) - HEADER.size > self.max_frame:
            raise ValueError(f"message of {len(frame) - HEADER.size} bytes is over the {self.max_frame}-byte cap")
        self.sock.sendall(frame)

    def recv(self, deadline: float | None = None):
        """The next object; raises ChannelClosed on EOF, garbage or a missed deadline (time.time())."""
        (size,) = HEADER.unpack(self._read(HEADER.size, deadline))
        if size > self.max_frame:
            raise ChannelClosed(f"peer sent a {size}-byte frame (cap {self.max_frame})")
        body = self._read(size, deadline)
        budget = DECODE_BUDGET_S if deadline is None else min(DECODE_BUDGET_S, deadline - time.time())
        if budget <= 0:
            raise ChannelClosed("no reply before the time limit")
        return decode(body, budget)

    def _read(self, size: int, deadline: float | None) -> bytes:
        chunks, got = [], 0
        while got < size:
            if deadline is not None:
                left = deadline - time.time()
                if left <= 0:
                    raise ChannelClosed("no reply before the time limit")
                self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(min(size - got, 1 << 20))
            except TimeoutError as exc:
                raise ChannelClosed("no reply before the time limit") from exc
            except OSError as exc:
                raise ChannelClosed(str(exc)) from exc
            if not chunk:
                raise ChannelClosed("the peer closed the channel")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self.sock.close()
