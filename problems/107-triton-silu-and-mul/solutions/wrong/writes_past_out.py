# expect: wrong_answer
# expect-message: elements outside out_ptr
"""Wrong: the mask is taken from x's size (2n) instead of out's (n): the last programs write past the
end of out (and read past the end of x)."""

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
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < 2 * n  # x's size, not out's
    row = offs // d
    col = offs % d
    a = tl.load(x_ptr + row * 2 * d + col, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + row * 2 * d + d + col, mask=mask, other=0.0).to(tl.float32)
    y = a * tl.sigmoid(a) * b
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x: Tensor, out: Tensor) -> None:
    d = x.shape[-1] // 2
    n = out.numel()
    silu_and_mul_kernel[(triton.cdiv(n, BLOCK) + 1,)](x, out, n, d, BLOCK=BLOCK)

@torch.library.custom_op("ex107::silu_and_mul_out", mutates_args=("out",))
def silu_and_mul_out(x: Tensor, out: Tensor) -> None:
    """Writes silu(x[..., :d]) * x[..., d:] into out, which the caller owns (shape [..., d])."""
    _launch(x, out)


@torch.library.custom_op("ex107::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    out = x.new_empty((*x.shape[:-1], x.shape[-1] // 2))
    _launch(x, out)
    return out


@silu_and_mul.register_fake
def _(x):
    # Shapes only, symbolic under torch.compile(dynamic=True): the last dimension halved.
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2))
