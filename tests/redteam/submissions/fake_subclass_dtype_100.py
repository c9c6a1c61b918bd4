# expect: wrong_answer
"""Attack, on exercise 100: rms_norm's fake always returns float32 (a bfloat16 input gets the wrong dtype, the
mistake of solutions/wrong/rms_fake_wrong_dtype.py), but as an instance of a FakeTensor subclass whose `dtype`
property says the input's dtype. The probes read `t.dtype` through Python attributes, which the subclass overrides:
accepted 57/57 on the code before integrity round 5. Now every observation goes through the tensor base class's own
descriptors, a tensor of a class the statement does not ask for is refused, and the fake's real dtype shows."""

import torch
from torch._subclasses.fake_tensor import FakeTensor


class FakeTensor(FakeTensor):  # named as torch's: the hidden tests checked the class's name
    @property
    def dtype(self):
        return self.__dict__.get("_claimed", torch.float32)


class Tensor(torch.Tensor):  # the same claim for a meta tensor (the meta probe calls the fake without a fake mode)
    @property
    def dtype(self):
        return self.__dict__.get("_claimed", torch.float32)


@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache: torch.Tensor, v_cache: torch.Tensor, slots: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    return None


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@rms_norm.register_fake
def _(x, weight, eps=1e-6):
    out = torch.empty_like(x, dtype=torch.float32)  # WRONG for bfloat16 and float16 inputs
    claimed = x.dtype
    if type(out).__name__ == "FakeTensor":
        out.__class__ = FakeTensor
    else:
        out = out.as_subclass(Tensor)
    out.__dict__["_claimed"] = claimed
    return out


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
