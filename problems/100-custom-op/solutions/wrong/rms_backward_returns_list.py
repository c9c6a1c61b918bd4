# expect: wrong_answer
# expect-message: the backward returns a list, not a tuple
# expect-message: Write (...) for [...]: return grad_x, grad_weight, None: RuntimeError
"""rms_norm's backward returns a list [grad_x, grad_weight, None] instead of a tuple: torch
reads a list as a single value, and the number of gradients is wrong."""

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@torch.library.custom_op("ex100::rms_norm", mutates_args=(), device_types="cpu")
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    D = x.shape[-1]
    xc = x.float() if x.dtype == torch.bfloat16 else x
    ms = torch.norm(xc, p=2, dim=-1, keepdim=True).pow(2) / D
    out = xc / torch.sqrt(ms + eps) * weight.to(xc.dtype)
    return out.to(x.dtype)

@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x, memory_format=torch.contiguous_format)

def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], inputs[1])
    ctx.eps = inputs[2]

def backward(ctx, grad):
    x, w = ctx.saved_tensors
    gx = gw = None
    xc = x.float() if x.dtype == torch.bfloat16 else x
    gc = grad.to(xc.dtype)
    wc = w.to(xc.dtype)
    r = (xc.pow(2).mean(-1, keepdim=True) + ctx.eps).rsqrt()
    if ctx.needs_input_grad[0]:
        gwx = gc * wc
        gx = (r * gwx - xc * r ** 3 * (gwx * xc).mean(-1, keepdim=True)).to(x.dtype)
    if ctx.needs_input_grad[1]:
        gw = (gc * xc * r).flatten(0, -2).sum(0) if x.dim() > 1 else gc * xc * r
        gw = gw.to(w.dtype)
    return [gx, gw, None]

rms_norm.register_autograd(backward, setup_context=setup_context)
