# expect: wrong_answer
"""Attack: take over the worker's channel and answer the checker's probe calls directly.

rms_norm's registered backward is wrong (rsqrt(mean(x^2)) treated as a constant). At import this
file finds the channel object the worker uses (gc), reports {"import": "ok"} itself and then
serves every request: honest probes for everything the wrong op passes anyway, and forged
observations (plain autograd through the formula) for the backward, gradcheck and compiled
probes. It never returns to the worker's own loop. Snapshotting the probe table would not stop
this; only a check whose answer the worker cannot compute would. The worker's guard refuses
gc.get_objects (and every other route to the channel), so the honest, wrong part is judged."""

import gc
import os
import sys

import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


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
    grad_weight = (grad_out * x * r).reshape(-1, x.shape[-1]).sum(0)
    return grad_out * weight * r, grad_weight, None  # wrong: r treated as a constant


rms_norm.register_autograd(_backward, setup_context=_setup_context)


# ---------------------------------------------------------------- the takeover

def _formula_grads(x, weight, eps, grad_out):
    x = x.detach().clone().requires_grad_(True)
    w = weight.detach().clone().requires_grad_(True)
    out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
    out.backward(grad_out)
    return out.detach().clone(), x.grad.detach().clone(), w.grad.detach().clone()


def _forged(name, args):
    if name == "rms_norm_backward":
        _, dx, dw = _formula_grads(*args[:4])
        return {"out_requires_grad": True, "x_grad": dx, "weight_grad": dw}
    if name == "rms_norm_compiled":
        out, dx, dw = _formula_grads(*args[:4])
        return {"out": out, "out_requires_grad": True, "x_grad": dx, "weight_grad": dw}
    if name == "rms_norm_gradcheck":
        return {"passed": True, "message": ""}
    raise KeyError(name)


def _find_channel():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Channel" and hasattr(obj, "sock") and hasattr(obj, "recv"):
            return obj
    return None


def _find_probes():
    """The worker's private table of probe functions (a dict of functions defined in 'probes')."""
    for obj in gc.get_objects():
        if type(obj) is dict and obj and all(getattr(v, "__module__", None) == "probes" for v in obj.values()):
            return obj
    return {}


def _serve(channel):
    probes = _find_probes()
    me = sys.modules.get("solution")
    channel.send({"import": "ok"})
    while True:
        try:
            request = channel.recv()
        except Exception:  # noqa: BLE001 - the checker hung up: the judgement is over
            os._exit(0)
        name, args, kwargs = request["probe"], request["args"], request["kwargs"]
        try:
            try:
                reply = {"ok": _forged(name, args)}
            except KeyError:
                reply = {"ok": probes[name](me, *args, **kwargs)}
        except Exception as exc:  # noqa: BLE001
            reply = {"raised": {"type": type(exc).__name__, "message": str(exc)[:500], "learner_line": None}}
        channel.send(reply)


try:
    _channel = _find_channel()
except PermissionError as _exc:  # the worker's guard refuses gc.get_objects: the honest part is judged
    print(f"refused: {_exc}")
    _channel = None
if _channel is not None:
    _serve(_channel)
