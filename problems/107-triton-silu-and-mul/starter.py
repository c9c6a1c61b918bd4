"""Exercise 107 / 练习 107: a Triton silu_and_mul kernel as a custom operator / 注册为自定义算子的 Triton 融合 kernel.

Write one Triton kernel computing out = silu(x[..., :d]) * x[..., d:] and register two operators:
写一个 Triton kernel 计算 out = silu(x[..., :d]) * x[..., d:]，并注册两个算子：
  ex107::silu_and_mul_out(Tensor x, Tensor(a1!) out) -> ()   writes into out, which the caller owns / 写入调用者提供的 out
  ex107::silu_and_mul(Tensor x) -> Tensor                      allocates out; needs register_fake / 自己分配输出；需要 register_fake

The last block runs past the end of the data: mask every load and store (offs < n), and launch
triton.cdiv(n, BLOCK) programs. Compute in float32, store in out's dtype.
最后一个块会越过数据末尾：每个 load 和 store 都要加 mask（offs < n），启动 triton.cdiv(n, BLOCK) 个 program。
在 float32 中计算，以 out 的 dtype 存回。

On a machine without a GPU the judge runs the kernel in Triton's interpreter (TRITON_INTERPRET=1).
没有 GPU 的机器上，判题器用 Triton 的解释器（TRITON_INTERPRET=1）运行 kernel。

Judge it with / 判题:  python practice/judge.py 107
The statement / 题面: python practice/judge.py 107 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/107)
"""

import torch
from torch import Tensor

try:
    import triton
    import triton.language as tl
except ImportError as exc:  # the judge shows this message when Triton is missing / 缺少 Triton 时判题器显示这句
    raise ImportError(
        "Exercise 107 needs Triton: pip install -e '.[triton]' / 练习 107 需要 Triton：pip install -e '.[triton]'"
    ) from exc

BLOCK = 1024


@triton.jit
def silu_and_mul_kernel(x_ptr, out_ptr, n, d, BLOCK: tl.constexpr):
    """One program per BLOCK elements of the flattened output [rows, d] / 每个 program 负责展平输出中的 BLOCK 个元素."""
    # TODO: offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK); mask = offs < n
    # TODO: row = offs // d, col = offs % d; a = x[row, col], b = x[row, d + col] (row stride 2 * d / 行步长 2 * d)
    # TODO: load in float32 / 以 float32 读入: tl.load(..., mask=mask, other=0.0).to(tl.float32)
    # TODO: tl.store(out_ptr + offs, (a * tl.sigmoid(a) * b).to(out_ptr.dtype.element_ty), mask=mask)
    pass


def _launch(x: Tensor, out: Tensor) -> None:
    # TODO: n = out.numel(); d = x.shape[-1] // 2; grid = (triton.cdiv(n, BLOCK),)
    #       silu_and_mul_kernel[grid](x, out, n, d, BLOCK=BLOCK)
    raise NotImplementedError("TODO: launch the kernel")


@torch.library.custom_op("ex107::silu_and_mul_out", mutates_args=("out",))
def silu_and_mul_out(x: Tensor, out: Tensor) -> None:
    _launch(x, out)


@torch.library.custom_op("ex107::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    # TODO: allocate out [..., d] with x's dtype and device, launch, return it
    # TODO: 按 x 的 dtype 和设备分配 out [..., d]，启动 kernel，返回 out
    raise NotImplementedError("TODO: silu_and_mul")


# TODO: @silu_and_mul.register_fake — shape [..., d], x's dtype and device; no data, no kernel launch
# TODO: @silu_and_mul.register_fake —— 形状 [..., d]，沿用 x 的 dtype 和设备；不读数据，不启动 kernel
