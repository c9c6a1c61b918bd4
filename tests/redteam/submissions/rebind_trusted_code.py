# expect: runtime_error
"""Attack: kv_write declares no mutation (mutates_args=(), the chapter's bug), and the judge's own
schema observation (judge.worker.observe._argument, which probes call to read the dispatcher's
schema) is rebound so that the caches read as written, `Tensor(a!)`.

The worker's guard compares the code it trusts against a snapshot taken before this file was
imported; the rebinding is found before the first reply leaves, and the checker believes nothing
more from this worker: runtime_error. Were it missed, the forged schema would pass and the
compiled-write probes would still fail: wrong_answer, and this case fails."""

import torch
from torch import Tensor

import judge.worker.observe as observe

_real_argument = observe._argument


def _forged_argument(arg, *rest, **kw):
    info = _real_argument(arg, *rest, **kw)
    if info["name"] in ("k_cache", "v_cache"):
        info = {**info, "is_write": True, "has_alias": True}
    return info


observe._argument = _forged_argument


@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG on purpose
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    x, weight = ctx.saved_tensors
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
    x_hat = x * r
    g = grad_out * weight
    grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    return grad_x, (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0), None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
