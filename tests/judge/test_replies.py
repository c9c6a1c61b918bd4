"""Worker replies are plain data and sane CPU tensors, or they are rejected."""

import io
import time

import pytest
import torch

from judge.wire.channel import HEADER, MAX_PICKLE, Channel, ChannelClosed, TooCostly, decode, encode
from judge.wire.replies import ReplyRejected, check_reply


def test_plain_data_and_tensors_pass():
    value = {"a": [1, 2.5, "x", None, True], "t": torch.arange(6).view(2, 3), "d": torch.float32}
    assert check_reply(value) is value


@pytest.mark.parametrize(
    "bad",
    [
        torch.zeros(1).expand(10**12),  # a 10^12-element broadcast view
        torch.empty(3, device="meta"),
        torch.nn.Parameter(torch.zeros(2)),
        {1: "non-string key"},
        object(),
    ],
)
def test_suspicious_values_are_rejected(bad):
    with pytest.raises(ReplyRejected):
        check_reply(bad)


def test_deep_nesting_is_rejected():
    value = []
    for _ in range(40):
        value = [value]
    with pytest.raises(ReplyRejected):
        check_reply(value)


class Evil:
    def __reduce__(self):
        return (print, ("pwned",))


def _pair():
    import socket

    a, b = socket.socketpair()
    return Channel(a), Channel(b)


def test_channel_refuses_a_pickle_that_would_run_code():
    """An archive whose data.pkl would call print() when unpickled: weights_only refuses it."""
    import pickle
    import zipfile

    buf = io.BytesIO()
    torch.save({"ok": 1}, buf)
    evil = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, zipfile.ZipFile(evil, "w") as dst:
        for info in src.infolist():
            data = pickle.dumps(Evil(), protocol=2) if info.filename.endswith("data.pkl") else src.read(info)
            dst.writestr(info.filename, data, compress_type=zipfile.ZIP_STORED)
    sender, receiver = _pair()
    sender.sock.sendall(_frame(evil.getvalue()))
    with pytest.raises(ChannelClosed, match="unreadable"):
        receiver.recv()


def test_channel_refuses_a_bare_pickle():
    import pickle

    sender, receiver = _pair()
    sender.sock.sendall(_frame(pickle.dumps(Evil())))
    with pytest.raises(ChannelClosed, match="not a torch.save archive"):
        receiver.recv()


def test_channel_refuses_oversized_frames():
    import struct

    sender, receiver = _pair()
    sender.sock.sendall(struct.pack("!Q", 1 << 40))
    with pytest.raises(ChannelClosed, match="frame"):
        receiver.recv()


def test_channel_round_trips_tensors():
    sender, receiver = _pair()
    sender.send({"ok": torch.ones(3)})
    assert torch.equal(receiver.recv()["ok"], torch.ones(3))


def test_channel_reports_a_closed_peer():
    sender, receiver = _pair()
    sender.close()
    with pytest.raises(ChannelClosed):
        receiver.recv()


def _frame(data: bytes) -> bytes:
    import struct

    return struct.pack("!Q", len(data)) + data


def test_channel_refuses_a_compressed_record_before_loading_it():
    import zipfile

    buf = io.BytesIO()
    torch.save({"ok": torch.zeros(1000)}, buf)
    bomb = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, zipfile.ZipFile(bomb, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info), compress_type=zipfile.ZIP_DEFLATED)
    sender, receiver = _pair()
    sender.sock.sendall(_frame(bomb.getvalue()))
    with pytest.raises(ChannelClosed, match="compressed"):
        receiver.recv()


def test_channel_refuses_a_frame_that_is_not_an_archive():
    sender, receiver = _pair()
    sender.sock.sendall(_frame(b"not a zip at all"))
    with pytest.raises(ChannelClosed, match="not a torch.save archive"):
        receiver.recv()


def _pickle_bomb(size: int) -> bytes:
    """A torch.save-shaped archive whose pickle is `size` bytes of the cheapest opcodes (None, append)."""
    import zipfile

    body = b"\x80\x02]" + b"Na" * ((size - 4) // 2) + b"."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", body)
        archive.writestr("archive/version", "3\n")
        archive.writestr("archive/byteorder", "little")
    return buf.getvalue()


def test_channel_refuses_a_pickle_over_the_cap_without_decoding_it():
    start = time.monotonic()
    with pytest.raises(TooCostly):
        decode(_pickle_bomb(8 << 20), budget_s=30)
    assert time.monotonic() - start < 1.0  # refused by size, not after seconds of unpickling


def test_channel_stops_a_costly_pickle_at_its_budget():
    start = time.monotonic()
    with pytest.raises(TooCostly):
        decode(_pickle_bomb(MAX_PICKLE - 64), budget_s=0.05)
    assert time.monotonic() - start < 1.0


def test_channel_decodes_an_honest_reply_within_its_budget():
    frame = encode({"ok": {"k_cache": torch.zeros(64, 8), "report": ["SUCCESS"] * 20}})
    assert decode(frame[HEADER.size :], budget_s=1.0)["ok"]["report"][0] == "SUCCESS"
