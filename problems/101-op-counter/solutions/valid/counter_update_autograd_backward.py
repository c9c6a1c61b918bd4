"""Valid: Counter.update, a separate mode instance per call, torch.autograd.backward, a copied Counter."""

from collections import Counter

import torch
from torch.nn.functional import scaled_dot_product_attention
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.counts = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts.update([str(func)])
        if kwargs is None:
            kwargs = {}
        out = func(*args, **kwargs)
        return out


def count_sdpa_ops(q, k, v, *, is_causal=False, backward=False):
    with OpCounter() as mode:
        attn = scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            torch.autograd.backward(attn.sum())
    return Counter(mode.counts)
