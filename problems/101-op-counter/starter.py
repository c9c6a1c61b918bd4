"""练习 101：基于 TorchDispatchMode 的算子计数器。
Exercise 101: an operator counter built on TorchDispatchMode.

完成两处 TODO。本地判题：python practice/judge.py 101
Fill in the two TODOs. Judge locally with: python practice/judge.py 101
The statement / 题面: python practice/judge.py 101 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/101)
"""

import collections

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class OpCounter(TorchDispatchMode):
    """在 with 块里（``with OpCounter() as c: ...``）统计 dispatcher 交给这个 mode 的每一次 aten 调用。
    ``c.counts`` 是从 str 到 int 的映射（推荐 collections.Counter），键是 ``str(func)``，例如 ``"aten.mm.default"``。

    While active (``with OpCounter() as c: ...``), counts every aten call the dispatcher sends
    to the mode. ``c.counts`` maps str to int (collections.Counter is recommended), keyed by
    ``str(func)``, for example ``"aten.mm.default"``."""

    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        # TODO: 在 str(func) 下记一次，再用原样的 args 和 kwargs 调用 func，原样返回它的结果。
        # TODO: count this call under str(func), then run func with the same args and kwargs
        #       and return its result unchanged.
        raise NotImplementedError("OpCounter.__torch_dispatch__")


def count_sdpa_ops(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, is_causal: bool = False, backward: bool = False
) -> collections.Counter:
    """统计 F.scaled_dot_product_attention(q, k, v, is_causal=is_causal) 的 aten 调用；backward 为真时
    也统计 out.sum().backward()（此时 q、k、v 已经需要梯度）。

    Count the aten calls of F.scaled_dot_product_attention(q, k, v, is_causal=is_causal) and,
    when backward is true, of out.sum().backward() too (q, k and v then already require grad)."""
    # TODO
    return collections.Counter()
