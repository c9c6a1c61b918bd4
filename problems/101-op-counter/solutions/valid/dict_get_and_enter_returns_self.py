"""Valid: counting with get(), an explicit __enter__, the causal flag passed positionally-by-name."""

import collections

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __enter__(self):
        super().__enter__()
        return self

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = str(func)
        self.counts[name] = self.counts.get(name, 0) + 1
        return func(*args, **(kwargs if kwargs is not None else {}))


def count_sdpa_ops(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
                   is_causal: bool = False, backward: bool = False) -> collections.Counter:
    counter = OpCounter()
    counter.__enter__()
    try:
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=is_causal)
        if backward:
            loss = out.sum()
            loss.backward()
    finally:
        counter.__exit__(None, None, None)
    return counter.counts
