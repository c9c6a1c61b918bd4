"""Valid: counts become a plain dict when the with block ends: any mapping from str to int will do."""

import collections
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()
    def __exit__(self, *exc):
        r = super().__exit__(*exc)
        self.counts = collections.Counter(self.counts)
        self.counts = dict(self.counts)          # hands back a plain dict after the block
        return r
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] = self.counts.get(str(func), 0) + 1
        return func(*args, **(kwargs or {}))

def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    with OpCounter() as c:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            out.sum().backward()
    return c.counts
