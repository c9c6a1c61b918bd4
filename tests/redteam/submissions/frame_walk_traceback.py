# expect: wrong_answer
"""Attack: without sys._getframe, reach a frame through a caught exception's traceback (tb_frame), through
sys.exc_info(), and through a traceback built by raising inside a probe call (the kernel runs under the
probe: its tb_frame chain reaches the probe's and the loop's frames); then forge the probe table. Refused."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@


def _from_exception(route):
    try:
        raise RuntimeError("x")
    except RuntimeError as exc:
        _take_from(exc.__traceback__.tb_frame, route)


def _from_exc_info(route):
    try:
        1 / 0
    except ZeroDivisionError:
        _take_from(sys.exc_info()[2].tb_frame, route)


_try("tb_frame", lambda: _from_exception("tb_frame"))
_try("exc_info", lambda: _from_exc_info("exc_info"))



@kv_write.register_kernel("cpu")
def _kv_kernel(k_cache, v_cache, slots, k, v):
    _try("tb_frame in a probe", lambda: _from_exception("tb_frame in a probe"))
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)
