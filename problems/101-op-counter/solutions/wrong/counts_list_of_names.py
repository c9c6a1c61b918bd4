# expect: wrong_answer
"""Keeps a list of the names it saw instead of a mapping from name to count."""

import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts.append(str(func))
        return func(*args, **(kwargs or {}))


def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    with OpCounter() as c:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            out.sum().backward()
    return c.counts
