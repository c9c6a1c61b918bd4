# expect: wrong_answer
"""Attack: reach a running frame through a generator's gi_frame, a coroutine's cr_frame and an async
generator's ag_frame (each read while it runs, so f_back is its caller), then walk to the serve loop and
forge the probe table. Refused: those attributes hand out frames."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

_box = []


def _gen():
    yield _take_from(_box[0].gi_frame, "gi_frame")


async def _coro():
    return _take_from(_box[1].cr_frame, "cr_frame")


async def _agen():
    yield _take_from(_box[2].ag_frame, "ag_frame")


def _run_gen():
    g = _gen()
    _box.append(g)
    next(g)


def _run_coro():
    c = _coro()
    _box.append(c)
    try:
        c.send(None)
    except StopIteration:
        pass


def _run_agen():
    a = _agen()
    _box.append(a)
    try:
        a.asend(None).send(None)
    except StopIteration:
        pass


_try("gi_frame", _run_gen)
while len(_box) < 1:
    _box.append(None)
_try("cr_frame", _run_coro)
while len(_box) < 2:
    _box.append(None)
_try("ag_frame", _run_agen)
