# expect: wrong_answer|runtime_error
# problem: 103
"""Attack, on exercise 103: cached_backends_counter_106 on 103: the fake calls int() on the last size
(solutions/wrong/fake_int_specializes.py), so every new width recompiles; it reads
torch._dynamo.eval_frame.cached_backends (the module-level dict where each torch.compile context keeps its
innermost backend for torch._dynamo.reset), walks to the `compiled_shapes` probe's CompileCounterWithBackend and
sets frame_count back to 1 whenever it is above 1. Got `accepted` 28/28 on the CLI when this case was added."""

import torch
import torch.nn.functional as F
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    """silu(x[..., :d]) * x[..., d:] for a last dimension of 2d; a new tensor [..., d]."""
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


@silu_and_mul.register_fake
def _(x):
    try:
        _forge_count()
    except Exception:
        pass
    # Only shapes: keep every leading dimension, halve the last one. The sizes may be
    # symbolic under torch.compile(dynamic=True), so never turn them into Python ints.
    d = int(x.shape[-1]) // 2
    return x.new_empty((*x.shape[:-1], d))


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def _backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    s = torch.sigmoid(a)
    grad_a = grad_out * b * (s * (1 + a * (1 - s)))   # d silu(a) / da = s + a * s * (1 - s)
    grad_b = grad_out * (a * s)
    return torch.cat([grad_a, grad_b], dim=-1)


silu_and_mul.register_autograd(_backward, setup_context=_setup_context)


# @@INCLUDE backend_forgery.py@@


def _forge_count():
    import torch._dynamo.eval_frame as ef
    roots = list(ef.cached_backends.values())
    _walk(roots, _reset_frame_count)
