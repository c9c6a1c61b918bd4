"""Exercise 100's reference, with the debugging a learner leaves in: traceback.print_exc(), traceback.format_stack()
and logging (caller lookup, stack_info, exc_info) inside its kernels, backward and at import. The worker's guard
refuses frames to learner code; these helpers take frames and give back only text, so they must keep working
and the solution must be accepted."""

import logging
import sys
import traceback

import torch
from torch import Tensor

logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(filename)s:%(lineno)d %(funcName)s %(message)s")
log = logging.getLogger("learner")


_calls: dict[str, int] = {}


def _debug(where: str) -> None:
    _calls[where] = _calls.get(where, 0) + 1
    if _calls[where] > 2:  # a learner's debugging output, kept short: the first two calls of each site
        log.debug("call %d of %s", _calls[where], where)
        return
    try:
        raise ValueError(f"debugging {where}")
    except ValueError:
        traceback.print_exc()
        text = traceback.format_exc()
    stack = "".join(traceback.format_stack())
    traceback.print_stack(limit=3)
    summary = traceback.extract_stack(limit=5)
    log.info("%s: %d stack lines, %d summary frames, %d chars", where, stack.count("\n"), len(summary), len(text))
    log.debug("not shown")
    log.warning("stack of %s", where, stack_info=True)
    try:
        {}["missing"]
    except KeyError:
        log.exception("expected: %s", where)


_debug("import")


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    _debug("kv_write")
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    _debug("rms_norm")
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _backward(ctx, grad_out):
    _debug("backward")
    x, weight = ctx.saved_tensors
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
    x_hat = x * r
    g = grad_out * weight
    grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)
