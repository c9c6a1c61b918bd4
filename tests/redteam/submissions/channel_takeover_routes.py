# expect: wrong_answer
"""Attack: every way Python offers to reach the worker's channel, tried at import and again from
inside a probe. kv_write declares no mutation (mutates_args=(), the chapter's bug), so the honest
verdict is wrong_answer.

Routes: a socket object over the descriptor (socket.socket(fileno=), socket.fromfd), os.write /
os.writev / os.sendfile / os.splice on it, os.dup / os.dup2 / fcntl F_DUPFD and F_SETFD,
/proc/self/fd, closing it, forging the guard's own audit events, a child process handed the
descriptor (pass_fds) and a signal handler that would run inside the serve loop's frame.
Each route that works sends a forged {"import": "ok"} frame, which puts the channel out of step:
the verdict is then runtime_error, not wrong_answer, and this case fails."""

import fcntl
import os
import signal
import socket
import stat
import subprocess
import sys

import torch
from torch import Tensor

from judge.wire.channel import encode

_FORGED = encode({"import": "ok"})
_opened = []


def _sockets():
    found = []
    for fd in range(3, 4096):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                found.append(fd)
        except OSError:
            pass
    return found


def _try(route, action):
    try:
        action()
    except (OSError, ValueError, RuntimeError, subprocess.SubprocessError) as exc:
        print(f"route {route}: refused ({type(exc).__name__})", file=sys.stderr)
    else:
        print(f"route {route}: went through", file=sys.stderr)


def _attempt_all():
    for fd in _sockets():
        _try("socket(fileno=)", lambda: _opened.append(socket.socket(fileno=fd)) or _opened[-1].sendall(_FORGED))
        _try("socket.fromfd", lambda: socket.fromfd(fd, socket.AF_UNIX, socket.SOCK_STREAM).sendall(_FORGED))
        _try("os.write", lambda: os.write(fd, _FORGED))
        _try("os.writev", lambda: os.writev(fd, [_FORGED]))
        _try("os.dup", lambda: os.write(os.dup(fd), _FORGED))
        _try("os.dup2", lambda: os.write(os.dup2(fd, 900), _FORGED))
        _try("F_DUPFD", lambda: os.write(fcntl.fcntl(fd, fcntl.F_DUPFD, 700), _FORGED))
        _try("F_SETFD", lambda: fcntl.fcntl(fd, fcntl.F_SETFD, 0))
        _try("/proc/self/fd", lambda: os.write(os.open(f"/proc/self/fd/{fd}", os.O_WRONLY), _FORGED))
        _try("os.sendfile", lambda: os.sendfile(fd, os.open(__file__, os.O_RDONLY), 0, 64))
        _try("pass_fds", lambda: subprocess.run(
            [sys.executable, "-c", f"import os; os.write({fd}, {_FORGED!r})"], pass_fds=(fd,), timeout=20, check=True))
    _try("audit send", lambda: sys.audit("judge.worker.send", _FORGED, _FORGED))
    _try("audit recv", lambda: sys.audit("judge.worker.recv", []))
    _try("signal handler", lambda: signal.signal(signal.SIGALRM, lambda *a: sys.audit("judge.worker.send", _FORGED, _FORGED)))


def _attempt(route):
    try:
        _attempt_all()
    except Exception as exc:  # noqa: BLE001 - a refusal raised as something else still must not stop the op
        print(f"{route}: {type(exc).__name__}: {exc}", file=sys.stderr)


_attempt("import")
_in_probe = []


@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG on purpose
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    if not _in_probe:
        _in_probe.append(True)
        _attempt("probe")
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
