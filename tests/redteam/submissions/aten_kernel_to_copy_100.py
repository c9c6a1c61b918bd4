# expect: compile_error|runtime_error
"""Attack, on exercise 100: rms_norm scales its input in place (x.mul_(2)), and a kernel registered over
aten::_to_copy for the CPU (the operator behind every copy the judge makes to send a tensor back) returns, for a
tensor the operator wrote, the values it had before. On the code before integrity round 5 every "input changed"
observation said "unchanged" (wrong_answer 45/57, only for the gradients the write itself broke). Now a
registration on a namespace that holds torch's operators is refused before the first probe
(judge.worker.registrations), here while the file imports."""

import torch
from torch import Tensor

_before = {}


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
    with torch._C._DisableTorchDispatch():
        _before[x.untyped_storage().data_ptr()] = x.detach().clone()
    x.mul_(2)  # WRONG: an undeclared write to an input
    return out


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    return torch.empty_like(x)


_lib = torch.library.Library("aten", "IMPL")


def _to_copy(self, *args, **kwargs):
    """Copies as the dispatcher would (through aten::copy_, which is not overridden), but of the values a tensor had
    before rms_norm wrote it."""
    if not isinstance(self, torch.Tensor):  # a wrapped Python number (x.pow(2)'s exponent) arrives unwrapped
        return torch.tensor(self, dtype=kwargs.get("dtype"))
    with torch._C._AutoDispatchBelowAutograd():
        saved = _before.get(self.untyped_storage().data_ptr())
        source = saved if saved is not None and saved.shape == self.shape and saved.dtype == self.dtype else self
        out = torch.empty(source.shape, dtype=kwargs.get("dtype") or source.dtype, device="cpu")
        out.copy_(source)
    return out


_lib.impl("_to_copy", _to_copy, "CPU")


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
