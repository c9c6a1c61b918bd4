# expect: wrong_answer
# expect-message: from more than one program, a race on a GPU
"""Wrong: one program per row that also writes the next row: the values come out right under the
interpreter (programs run one after another, the last write wins), but on a GPU two programs write
the same elements at once: a race."""

import torch
from torch import Tensor

try:
    import triton
    import triton.language as tl
except ImportError as exc:  # the judge shows this message when Triton is missing
    raise ImportError("Exercise 107 needs Triton: pip install -e '.[triton]' / 练习 107 需要 Triton：pip install -e '.[triton]'") from exc

@triton.jit
def silu_and_mul_kernel(x_ptr, out_ptr, rows, d, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    col = tl.arange(0, BLOCK)
    for r in range(2):  # this row and the next one
        mask = (col < d) & (row + r < rows)
        a = tl.load(x_ptr + (row + r) * 2 * d + col, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(x_ptr + (row + r) * 2 * d + d + col, mask=mask, other=0.0).to(tl.float32)
        y = a * tl.sigmoid(a) * b
        tl.store(out_ptr + (row + r) * d + col, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x: Tensor, out: Tensor) -> None:
    d = x.shape[-1] // 2
    rows = out.numel() // d
    silu_and_mul_kernel[(rows,)](x, out, rows, d, BLOCK=triton.next_power_of_2(d))

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
