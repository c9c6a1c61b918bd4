# expect: wrong_answer
# Written by an independent tester who saw the judge's design but not this corpus; accepted before the
# schema probe stopped going through torch.ops and read the schema through getters bound before the import.
"""(attack3: proxy only for the schema; compiled via fake-impl frame walk, opcheck via kernel that skips writes under SchemaCheckMode) kv_write registered with mutates_args=() (the chapter's bug); probes are fooled in-probe.

- torch.ops.ex100.kv_write (a cached attribute of the _OpNamespace instance, not watched) is replaced by a
  proxy whose `.default` property runs learner code at the start of every probe that looks the op up.
- schema probe: the proxy patches torch._C.Argument.alias_info and torch._C.FunctionSchema.returns; the
  patched `returns` getter (read last by observe._schema) restores both before the probe returns.
- compiled probe: the proxy writes the caches itself from the probe frame's locals.
- opcheck probe: the proxy turns test_schema into a no-op in the probes module's own _OPCHECK_TESTS dict
  (data, not watched), reached through the probe frame's f_globals.
"""
import sys
import torch
from torch import Tensor


@torch.library.custom_op("ex100::kv_write", mutates_args=())   # WRONG: the chapter's bug
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    f = sys._getframe(1)
    while f is not None:  # under opcheck's SchemaCheckMode: do not write (inputs are copies anyway)
        if f.f_code.co_filename.endswith("schema_check_mode.py"):
            return
        f = f.f_back
    if not torch.compiler.is_compiling():
        torch._dynamo.reset()  # so that the next compiled probe traces (and calls the fake impl) again
    k_cache.index_copy_(0, slots, k)
    v_cache.index_copy_(0, slots, v)


@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v):
    f = sys._getframe(1)   # traced by dynamo: write the real caches of the probe's frame now
    while f is not None:
        if f.f_code.co_name == "kv_write_compiled":
            loc = f.f_locals
            with torch.utils._python_dispatch._disable_current_modes(), torch._C._DisableFuncTorch():
                _write(loc)
            break
        f = f.f_back
    return None


def _write(loc):
    if True:
        if True:
            loc["k_cache"].index_copy_(0, loc["slots"], loc["k"])
            loc["v_cache"].index_copy_(0, loc["slots"], loc["v"])


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
    grad_x = grad_weight = None
    if ctx.needs_input_grad[0]:
        g = grad_out * weight
        grad_x = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    if ctx.needs_input_grad[1]:
        grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x, grad_weight, None


rms_norm.register_autograd(_backward, setup_context=_setup_context)

# ---------------------------------------------------------------- the forgery
_A, _F = torch._C.Argument, torch._C.FunctionSchema
_ALIAS, _RETURNS = _A.__dict__["alias_info"], _F.__dict__["returns"]


class _Alias:
    is_write = True


def _forged_alias(self):
    if _ALIAS.__get__(self) is None and self.name in ("k_cache", "v_cache"):
        return _Alias()
    return _ALIAS.__get__(self)


def _restoring_returns(self):
    _A.alias_info = _ALIAS
    _F.returns = _RETURNS
    return _RETURNS.__get__(self)


_real_packet = torch.ops.ex100.kv_write


class _Packet:
    def __getattr__(self, name):
        return getattr(_real_packet, name)

    def __call__(self, *a, **k):
        return _real_packet(*a, **k)

    @property
    def default(self):
        f1 = sys._getframe(1)
        f2 = f1.f_back
        if f1.f_code.co_name == "_op_exists" and f2 is not None and f2.f_code.co_name == "_schema":
            _A.alias_info = property(_forged_alias)
            _F.returns = property(_restoring_returns)
        return _real_packet.default


torch.ops.ex100.kv_write = _Packet()
