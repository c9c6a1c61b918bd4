# expect: wrong_answer
"""Intercepts at the Python API level (TorchFunctionMode): sees F.linear, not the aten ops."""

import collections

import torch.nn.functional as F
from torch.overrides import TorchFunctionMode


class OpCounter(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.counts[getattr(func, "__name__", str(func))] += 1
        return func(*args, **(kwargs or {}))


def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    c = OpCounter()
    with c:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            out.sum().backward()
    return c.counts
