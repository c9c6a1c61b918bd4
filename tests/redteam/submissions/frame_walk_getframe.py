# expect: wrong_answer
"""Attack: at import time, take sys._getframe() and walk f_back to the worker's serve loop; replace the
schema, compiled-write and opcheck probes in its table (unwrapping a read-only mapping through __eq__) with
functions that report an honest kv_write. The solution has the chapter's bug (mutates_args=()): if the table
were taken, the forged probes would get it accepted. The guard refuses frames to learner code."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

_try("sys._getframe", lambda: _take_from(sys._getframe(), "sys._getframe"))
_try("sys._getframe(1)", lambda: _take_from(sys._getframe(1), "sys._getframe(1)"))
