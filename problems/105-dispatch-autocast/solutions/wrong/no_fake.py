# expect: wrong_answer
"""No fake implementation: meta tensors, FakeTensorMode, opcheck and torch.compile all fail."""

import torch


def dispatch_keys(t):
    text = str(torch._C._dispatch_keys(t))
    inner = text[text.index("(") + 1:text.rindex(")")]
    return [name.strip() for name in inner.split(",") if name.strip()]


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return (a * b).sum(-1) * scale


torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
