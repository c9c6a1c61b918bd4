"""Valid: one program per row with BLOCK = next_power_of_2(d); registered with torch.library.Library (define, impl, register_fake)."""

import torch
from torch import Tensor

try:
    import triton
    import triton.language as tl
except ImportError as exc:  # the judge shows this message when Triton is missing
    raise ImportError("Exercise 107 needs Triton: pip install -e '.[triton]' / 练习 107 需要 Triton：pip install -e '.[triton]'") from exc

BLOCK = 1024


@triton.jit
def silu_and_mul_kernel(x_ptr, out_ptr, n, d, BLOCK: tl.constexpr):
    """One program per BLOCK output elements of the flattened [rows, d] output."""
    row = tl.program_id(0)
    col = tl.arange(0, BLOCK)
    mask = col < d
    offs = row * d + col
    a = tl.load(x_ptr + row * 2 * d + col, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + row * 2 * d + d + col, mask=mask, other=0.0).to(tl.float32)
    y = a * tl.sigmoid(a) * b              # in float32 whatever the storage dtype
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x: Tensor, out: Tensor) -> None:
    d = x.shape[-1] // 2
    n = out.numel()
    silu_and_mul_kernel[(n // d,)](x, out, n, d, BLOCK=triton.next_power_of_2(d))


_lib = torch.library.Library("ex107", "DEF")
_lib.define("silu_and_mul_out(Tensor x, Tensor(a!) out) -> ()")
_lib.define("silu_and_mul(Tensor x) -> Tensor")


def _out_variant(x, out):
    _launch(x, out)


def _functional(x):
    out = torch.empty((*x.shape[:-1], x.shape[-1] // 2), dtype=x.dtype, device=x.device)
    _launch(x, out)
    return out


_lib.impl("silu_and_mul_out", _out_variant, "CompositeExplicitAutograd")
_lib.impl("silu_and_mul", _functional, "CompositeExplicitAutograd")


@torch.library.register_fake("ex107::silu_and_mul_out")
def _(x, out):
    return None


@torch.library.register_fake("ex107::silu_and_mul")
def _(x):
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2))
