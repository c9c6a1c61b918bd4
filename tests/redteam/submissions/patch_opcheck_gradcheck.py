# expect: runtime_error
"""Attack: make opcheck and gradcheck always pass, combined with a wrong schema and a wrong backward.

Shallow: torch.library.opcheck, torch.autograd.gradcheck / gradgradcheck replaced.
Deep: the module globals those functions look up at call time (optests.opcheck, the
ALL_TEST_UTILS testers, gradcheck's _gradcheck_helper) replaced too, so even probes that bound
the public names before this file was imported run the forged versions.
The schema of kv_write declares no mutation (mutates_args=()), and rms_norm's backward treats
rsqrt(mean(x^2)) as a constant. The worker's guard finds the rebound functions before the first
reply leaves: runtime_error. (Were they missed, the checker's own value and schema checks would
still fail it: wrong_answer.)"""

import sys

import torch
import torch.library
import torch.testing._internal.optests as optests
import torch.testing._internal.optests.generate_tests as generate_tests
from torch import Tensor


def _always_success(op, args, kwargs=None, *, test_utils=None, raise_exception=True, **kw):
    return {name: "SUCCESS" for name in ("test_schema", "test_autograd_registration",
                                        "test_faketensor", "test_aot_dispatch_dynamic")}


torch.library.opcheck = _always_success
optests.opcheck = _always_success
generate_tests.opcheck = _always_success
for _name in list(generate_tests.ALL_TEST_UTILS):
    generate_tests.ALL_TEST_UTILS[_name] = lambda *a, **k: None
torch.autograd.gradcheck = lambda *a, **k: True
torch.autograd.gradgradcheck = lambda *a, **k: True
_gc = sys.modules["torch.autograd.gradcheck"]
_gc.gradcheck = lambda *a, **k: True
_gc._gradcheck_helper = lambda **k: True


@torch.library.custom_op("ex100::kv_write", mutates_args=())  # wrong: it writes both caches
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
