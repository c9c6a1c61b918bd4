# expect: wrong_answer
"""The Counter is a class attribute: every OpCounter shares it, so a new one is not empty."""

import collections

import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] += 1
        return func(*args, **(kwargs or {}))


def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    c = OpCounter()
    before = collections.Counter(c.counts)
    with c:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            out.sum().backward()
    return c.counts - before
