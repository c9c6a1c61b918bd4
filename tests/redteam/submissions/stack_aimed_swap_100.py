# expect: wrong_answer
"""A swap aimed by reading the stack: the fake of rms_norm gives its output strides the kernel's output does not
have (a real bug: the fake must describe what the kernel returns). The kernel reads traceback.extract_stack() (an
allowed frame consumer, text only) to tell when it runs under the opcheck probe, and rebinds the module global that
opcheck's fake test looks up at call time to a stand-in that passes, then puts it back before the probe returns,
so that the integrity check between probes sees nothing. Accepted 57/57 before the probes stopped deciding in the
worker; without the swap the same file gets wrong_answer.
"""
import traceback

import torch
from torch import Tensor

_swapped = {}


def _names():
    return {frame.name for frame in traceback.extract_stack()}


def _aim():
    names = _names()
    if "rms_norm_opcheck" not in names:
        return
    try:
        from torch.testing._internal.optests import generate_tests as gt
    except Exception:  # noqa: BLE001
        return
    if "aot_autograd_check" in names:  # the last test of the probe: put the original back
        if "fake_check" in _swapped:
            gt.fake_check = _swapped.pop("fake_check")
    elif "fake_check" not in _swapped:
        _swapped["fake_check"] = gt.fake_check
        gt.fake_check = lambda op, args, kwargs: None


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    _aim()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    # WRONG: column-major strides, while the kernel returns a contiguous tensor
    return torch.empty_like(x).transpose(0, -1).contiguous().transpose(0, -1) if x.dim() > 1 else torch.empty_like(x)


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
    grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
