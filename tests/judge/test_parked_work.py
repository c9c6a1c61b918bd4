"""The work a parked checker is given (judge.wire.jobs.ParkedWork): what the judge sends is what the checker reads,
and a judge that goes away or a frame that is not one ends the parked checker, never a judgement."""

from __future__ import annotations

import socket
import threading

import pytest

from judge.grading.parking import ParkedPair
from judge.wire.jobs import MAX_WORK, PARKED_LINE, WORK_HEADER, ParkedWork, read_work

WORK = ParkedWork(
    deadline=1234.5,
    display_name="我的 100.py",
    source="def f():\n    return '你好'\n" + "x = 1\n" * 50_000,  # larger than a socket's buffer
    shard=(1, 2),
    costs={"tests/test_public.py::test_a[1]": 0.25},
)


def test_the_work_crosses_whole():
    judge, checker = socket.socketpair()
    with judge, checker:
        frame = WORK.frame()
        sender = threading.Thread(target=judge.sendall, args=(frame,))
        sender.start()
        got = ParkedWork.read(checker)
        sender.join()
    assert got == WORK


def test_a_judge_that_closes_first_ends_the_wait():
    judge, checker = socket.socketpair()
    with checker:
        judge.sendall(WORK.frame()[:5])
        judge.close()
        with pytest.raises(EOFError):
            ParkedWork.read(checker)


def test_a_frame_over_the_cap_is_refused_before_it_is_read():
    judge, checker = socket.socketpair()
    with judge, checker:
        judge.sendall(WORK_HEADER.pack(MAX_WORK + 1))
        with pytest.raises(ValueError, match="cap"):
            ParkedWork.read(checker)


@pytest.mark.parametrize("data", [[], {"deadline": "soon"}, {"deadline": 1.0}])
def test_work_of_the_wrong_shape_is_refused(data):
    with pytest.raises((ValueError, KeyError, TypeError)):
        ParkedWork.from_wire(data)


def test_the_worker_gets_the_file_and_its_name_as_plain_json():
    judge, worker = socket.socketpair()
    with judge, worker:
        sender = threading.Thread(target=judge.sendall, args=(WORK.for_worker(),))
        sender.start()
        got = read_work(worker)
        sender.join()
    assert got == {"display_name": WORK.display_name, "source": WORK.source}


class _Job:
    def restart_clock(self) -> None:
        pass


class _GonePair:
    """A started pair whose checker has closed its events socket (it ended after it was found ready)."""

    def __init__(self) -> None:
        self.events, checker_end = socket.socketpair()
        checker_end.sendall(PARKED_LINE)
        checker_end.close()
        self.worker = self.checker = _Job()
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.events.close()


def test_a_parked_pair_whose_checker_went_is_closed_and_not_used():
    gone = _GonePair()
    parked = ParkedPair(gone)  # type: ignore[arg-type]
    assert parked.ready.wait(10)
    assert parked.go(WORK) is False and gone.closed
