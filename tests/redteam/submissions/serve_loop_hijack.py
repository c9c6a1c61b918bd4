# expect: wrong_answer
# needs: landlock
"""Attack: from inside a probe, walk up to the worker's serve loop and take it over without the
channel: swap the code or defaults of the functions it calls (_call, _reply_frame, encode), write
its frame's locals (a copy in Python 3.11: no effect), install a trace function (sys.settrace, threading.settrace, frame.f_trace),
list the garbage collector's objects to find the loop's state, and open its own memory for
writing (/proc/self/mem: Landlock allows no writes there). kv_write declares no mutation
(mutates_args=(), the chapter's bug): the honest verdict is wrong_answer.

A hijack that works makes the loop exit the worker (os._exit), so the verdict would be
runtime_error and this case fails."""

import gc
import os
import sys
import threading

import torch
from torch import Tensor


def _exit_now(*args, **kwargs):
    os._exit(0)


def _try(route, action):
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - every refusal is reported and the op carries on
        print(f"route {route}: refused ({type(exc).__name__}: {exc})", file=sys.stderr)
    else:
        print(f"route {route}: went through", file=sys.stderr)


def _serve_frame():
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "serve":
        frame = frame.f_back
    return frame


def _hijack():
    frame = _serve_frame()
    if frame is None:
        print("no serve frame above the probe", file=sys.stderr)
        return
    for name in ("call", "reply_frame"):
        fn = frame.f_locals.get(name)
        if fn is not None:
            _try(f"{name}.__code__", lambda: setattr(fn, "__code__", _exit_now.__code__))
            _try(f"{name}.__defaults__", lambda: setattr(fn, "__defaults__", None))
            _try(f"del {name}.__defaults__", lambda: delattr(fn, "__defaults__"))
            _try(f"{name}.__kwdefaults__", lambda: setattr(fn, "__kwdefaults__", {}))
    main = frame.f_globals
    _try("encode.__defaults__", lambda: setattr(main["encode"], "__defaults__", (_exit_now,) * 5))
    _try("f_locals", lambda: frame.f_locals.__setitem__("call", _exit_now))
    _try("f_trace", lambda: setattr(frame, "f_trace", lambda *a: _exit_now()))
    _try("sys.settrace", lambda: sys.settrace(lambda *a: _exit_now()))
    _try("sys.setprofile", lambda: sys.setprofile(lambda *a: _exit_now()))
    _try("threading.settrace", lambda: threading.settrace(lambda *a: _exit_now()))
    _try("gc.get_referrers", lambda: gc.get_referrers(frame))
    _try("gc.get_objects", lambda: gc.get_objects())
    _try("sys._current_frames", lambda: sys._current_frames())
    _try("sys.addaudithook", _add_audit_hook)
    _try("/proc/self/mem", _open_own_memory)


def _open_own_memory():
    # Writing its own memory would undo every Python-level guard.
    with open("/proc/self/mem", "r+b"):
        os._exit(0)


def _add_audit_hook():
    # sys.addaudithook swallows a refusal (the hook is just not added): see whether it was.
    heard = []
    sys.addaudithook(lambda event, args: heard.append(event) if event == "serve_loop_hijack.ping" else None)
    sys.audit("serve_loop_hijack.ping")
    if not heard:
        raise PermissionError("the audit hook was not added")
    os._exit(0)


_done = []


@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG on purpose
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    if not _done:
        _done.append(True)
        _hijack()
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
