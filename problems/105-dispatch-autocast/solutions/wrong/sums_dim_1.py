# expect: wrong_answer
"""Sums over dim=1: right for [N, D] inputs, wrong as soon as there is a batch dimension."""

import torch


def dispatch_keys(t):
    text = str(torch._C._dispatch_keys(t))
    inner = text[text.index("(") + 1:text.rindex(")")]
    return [name.strip() for name in inner.split(",") if name.strip()]


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return (a * b).sum(dim=1) * scale


@scaled_dot.register_fake
def _(a, b, scale):
    return a.new_empty(a.shape[:-1])


torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
