# expect: wrong_answer
"""Counts a hand-written softmax(q k^T / sqrt(d)) v instead of F.scaled_dot_product_attention."""

import collections
import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] += 1
        return func(*args, **(kwargs or {}))


def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    c = OpCounter()
    with c:
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if is_causal:
            mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
            scores = scores.masked_fill(~mask, float("-inf"))
        out = scores.softmax(-1) @ v
        if backward:
            out.sum().backward()
    return c.counts
