"""Exercise 101, reference solution."""

import collections

import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    """Counts every aten call that reaches the bottom of the dispatcher while the mode is active."""

    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] += 1
        return func(*args, **(kwargs or {}))


def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    counter = OpCounter()
    with counter:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            out.sum().backward()
    return counter.counts
