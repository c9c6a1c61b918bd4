# expect: wrong_answer
"""str.strip("DispatchKeySet()") strips a *set of characters*, not a prefix: it works for the
chapter's tensor and eats the ends of names like SparseCPU or PythonTLSSnapshot."""

import torch


def dispatch_keys(t):
    return str(torch._C._dispatch_keys(t)).strip("DispatchKeySet()").split(", ")


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return (a * b).sum(-1) * scale


@scaled_dot.register_fake
def _(a, b, scale):
    return a.new_empty(a.shape[:-1])


torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
