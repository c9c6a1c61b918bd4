"""Valid: einsum with the sum accumulated in float32 and rounded once at the end (it rounds
differently from (a * b).sum(-1) in bfloat16, within the tolerance); the fake impl reuses the
formula on fake tensors; keys by removing the prefix and splitting."""

import torch


def dispatch_keys(t):
    text = repr(torch._C._dispatch_keys(t)).removeprefix("DispatchKeySet(").removesuffix(")")
    return text.split(", ") if text else []


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    acc = torch.float64 if a.dtype == torch.float64 else torch.float32
    out = torch.einsum("...d,...d->...", a.to(acc), b.to(acc)) * scale
    return out.to(torch.promote_types(a.dtype, b.dtype))


@torch.library.register_fake("ex105::scaled_dot")
def _(a, b, scale):
    return (a * b).sum(-1) * scale


torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)
