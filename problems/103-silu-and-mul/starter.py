"""Exercise 103: the fused activation silu_and_mul as a custom operator.
练习 103：把融合激活 silu_and_mul 注册成自定义算子。

Register ex103::silu_and_mul(Tensor x) -> Tensor with torch.library.custom_op:
用 torch.library.custom_op 注册 ex103::silu_and_mul(Tensor x) -> Tensor：
  - x has shape [..., 2d]; the output is silu(x[..., :d]) * x[..., d:], shape [..., d],
    same dtype and device as x, a new tensor (x is not modified);
    x 的形状是 [..., 2d]；输出是 silu(x[..., :d]) * x[..., d:]，形状 [..., d]，
    dtype 和设备与 x 相同，是一个新张量（不修改 x）；
  - a fake implementation (register_fake) that halves the last dimension and works with
    symbolic sizes: do not turn x.shape[...] into Python ints;
    一个 fake 实现（register_fake）：把最后一维减半，并能处理符号大小：不要把 x.shape[...] 变成 Python int；
  - a backward registered with torch.library.register_autograd.
    用 torch.library.register_autograd 注册的反向。

Judge it with:  python practice/judge.py 103   (add --public for the public tests only)
本地判题：python practice/judge.py 103（只跑公开测试加 --public）
The statement / 题面: python practice/judge.py 103 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/103)
"""

import torch
from torch import Tensor


@torch.library.custom_op("ex103::silu_and_mul", mutates_args=())
def silu_and_mul(x: Tensor) -> Tensor:
    # TODO: d = x.shape[-1] // 2; return silu of the first half times the second half
    # TODO：d = x.shape[-1] // 2；返回前一半的 silu 乘以后一半
    raise NotImplementedError("silu_and_mul")


# TODO: @silu_and_mul.register_fake — only the output's shape / dtype / device, no data
# TODO：@silu_and_mul.register_fake——只给出输出的形状、dtype、设备，不读数据


# TODO: setup_context(ctx, inputs, output) and backward(ctx, grad_out), then
# silu_and_mul.register_autograd(backward, setup_context=setup_context)
# TODO：写 setup_context(ctx, inputs, output) 和 backward(ctx, grad_out)，然后
# silu_and_mul.register_autograd(backward, setup_context=setup_context)
