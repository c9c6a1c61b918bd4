# expect: wrong_answer
"""Walks the DispatchKey enum and keeps the members the set "has": enum order, plus alias keys."""

import torch


def dispatch_keys(t):
    key_set = torch._C._dispatch_keys(t)
    return [name for name, key in torch._C.DispatchKey.__members__.items() if key_set.has(key)]


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return (a * b).sum(-1) * scale


@scaled_dot.register_fake
def _(a, b, scale):
    return a.new_empty(a.shape[:-1])


torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
