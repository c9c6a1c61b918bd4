"""Exercise 105, reference solution."""

import torch


def dispatch_keys(t):
    text = str(torch._C._dispatch_keys(t))          # "DispatchKeySet(CPU, ADInplaceOrView, ...)"
    inner = text[text.index("(") + 1:text.rindex(")")]
    return [name.strip() for name in inner.split(",") if name.strip()]


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return (a * b).sum(-1) * scale


@scaled_dot.register_fake
def _(a, b, scale):
    return a.new_empty(a.shape[:-1])


# Under torch.autocast("cpu", dtype=torch.bfloat16) the AutocastCPU kernel casts the floating
# inputs (except float64) to bfloat16, then calls the op again below the autocast layer.
torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
