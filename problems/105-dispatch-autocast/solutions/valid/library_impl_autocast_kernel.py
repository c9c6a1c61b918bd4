"""Valid: the autocast rule written by hand as a kernel at the AutocastCPU dispatch key (what
register_autocast generates); dispatch_keys with a regular expression; fake impl via torch.empty."""

import re

import torch

_AUTOCAST_CPU = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCPU)


def dispatch_keys(t):
    return re.findall(r"\w+", str(torch._C._dispatch_keys(t)))[1:]


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.sum(a * b, dim=-1) * scale


@scaled_dot.register_fake
def _(a, b, scale):
    return torch.empty(a.shape[:-1], dtype=a.dtype, device=a.device)


def _to_bf16(t):
    return t.to(torch.bfloat16) if t.is_floating_point() and t.dtype != torch.float64 else t


def _autocast_cpu(a, b, scale):
    with torch._C._ExcludeDispatchKeyGuard(_AUTOCAST_CPU):   # run the layers below autocast
        return torch.ops.ex105.scaled_dot(_to_bf16(a), _to_bf16(b), scale)


_lib = torch.library.Library("ex105", "IMPL")
_lib.impl("scaled_dot", _autocast_cpu, "AutocastCPU")
