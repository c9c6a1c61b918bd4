"""Exercise 101: an operator counter built on TorchDispatchMode.

Fill in the two TODOs. Judge locally with: python practice/judge.py 101
"""

import collections

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    """While active (``with OpCounter() as c: ...``), counts every aten call the dispatcher sends
    to the mode. ``c.counts`` is a collections.Counter keyed by ``str(func)``, for example
    ``"aten.mm.default"``."""

    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        # TODO: count this call under str(func), then run func with the same args and kwargs
        #       and return its result unchanged.
        raise NotImplementedError("OpCounter.__torch_dispatch__")


def count_sdpa_ops(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
                   is_causal: bool = False, backward: bool = False) -> collections.Counter:
    """Count the aten calls of F.scaled_dot_product_attention(q, k, v, is_causal=is_causal) and,
    when backward is true, of out.sum().backward() too (q, k and v then already require grad)."""
    # TODO
    return collections.Counter()
