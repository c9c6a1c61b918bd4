"""Exercise 105: dispatch keys, and an autocast rule for a custom operator.

Fill in the TODOs. Judge locally with: python practice/judge.py 105
"""

import torch


def dispatch_keys(t: torch.Tensor) -> list[str]:
    """The names of the dispatch keys of t, in the order torch prints its DispatchKeySet:
    for torch.randn(3), ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]."""
    # TODO: torch._C._dispatch_keys(t)
    return []


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    """(a * b).sum(-1) * scale for a and b of the same shape [..., D]."""
    # TODO
    raise NotImplementedError("scaled_dot")


# TODO: a fake implementation (scaled_dot.register_fake) and an autocast rule for CPU
#       (torch.library.register_autocast) that runs scaled_dot in bfloat16.
