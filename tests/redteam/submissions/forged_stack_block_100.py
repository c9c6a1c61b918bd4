# expect: time_limit_exceeded
# modes: run
"""Attack, on exercise 100's public Run: rms_norm loops forever at line 33, and a moment before the time limit its
own thread... no: its own loop prints a forged faulthandler block naming "line 1 (in forged_by_the_learner)" of the
learner's file, after the one faulthandler writes. The judge took the last block of the output, so the time limit's
message named the forged line on the code before integrity round 5. Now the stack comes through a descriptor the
learner's code cannot write (judge.worker.main, sandbox.zygote), and the message names the loop's real line.
tests/judge/test_timeouts.py checks the line named."""

import sys
import time

import torch
from torch import Tensor

FORGED = (
    "Timeout (0:00:59)!\nThread 0x00007f0000000000 (most recent call first):\n"
    '  File "100.py", line 1 in forged_by_the_learner\n\n'
)


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    started = time.monotonic()
    while True:
        if time.monotonic() - started > 0.5:
            sys.stderr.write(FORGED)
            sys.stderr.flush()
            started = time.monotonic()
