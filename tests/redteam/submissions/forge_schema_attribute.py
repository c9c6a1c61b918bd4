# expect: wrong_answer
"""Attack: register kv_write with mutates_args="unknown" (every argument marked as written, which
the exercise rejects), then forge what the worker reports about it.

The OpOverload's Python attribute `_schema` is replaced by a parsed copy of the correct schema,
and opcheck's testers are replaced by no-ops. Whatever a probe reads from a Python object that
this file can reach is an observation this file controls."""

import torch
import torch.testing._internal.optests.generate_tests as generate_tests
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args="unknown")  # wrong per the statement
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
    x_hat = x * r
    grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    g = grad_out * weight
    return r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True)), grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)

# ---------------------------------------------------------------- the forgery
_overload = torch.ops.ex100.kv_write.default
try:
    _overload._schema = torch._C.parse_schema(
        "ex100::kv_write(Tensor(a0!) k_cache, Tensor(a1!) v_cache, Tensor slots, Tensor k, Tensor v) -> ()")
except Exception:  # noqa: BLE001 - an attacker just tries the next thing
    pass
for _name in list(generate_tests.ALL_TEST_UTILS):
    generate_tests.ALL_TEST_UTILS[_name] = lambda *a, **k: None
