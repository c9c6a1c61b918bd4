# expect: wrong_answer
"""Casts inside the CPU kernel when torch.is_autocast_enabled(): right in eager mode, but nothing
is registered at AutocastCPU and the fake implementation (what torch.compile traces) never
sees the cast."""

import torch


def dispatch_keys(t):
    text = str(torch._C._dispatch_keys(t))
    inner = text[text.index("(") + 1:text.rindex(")")]
    return [name.strip() for name in inner.split(",") if name.strip()]


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    if torch.is_autocast_enabled("cpu") and a.dtype != torch.float64:
        a, b = a.to(torch.bfloat16), b.to(torch.bfloat16)
    return (a * b).sum(-1) * scale


@scaled_dot.register_fake
def _(a, b, scale):
    return a.new_empty(a.shape[:-1])
