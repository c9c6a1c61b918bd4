"""Exercise 106 / 练习 106: graph breaks / 图断点.

opaque_gelu below stands in for a pybind11 binding: Dynamo cannot trace into it, so every call
splits the compiled graph in two (a graph break).
下面的 opaque_gelu 代替一个 pybind11 绑定：Dynamo 无法追踪进去，每次调用都会把编译出的图断成两段（图断点）。

Your tasks / 你的任务:
  1. Register ex106::gelu(Tensor x) -> Tensor with torch.library.custom_op; it calls opaque_gelu.
     用 torch.library.custom_op 注册 ex106::gelu(Tensor x) -> Tensor，内部调用 opaque_gelu。
  2. Give it a fake implementation (register_fake): the output's shape / dtype / device, no data.
     给它一个 fake 实现（register_fake）：只给出输出的形状 / dtype / 设备，不读数据。
  3. Make mlp go through the operator, so torch._dynamo.explain(mlp) reports 1 graph, 0 breaks.
     让 mlp 经过这个算子，使 torch._dynamo.explain(mlp) 报告 1 张图、0 个断点。

Judge it with / 判题:  python practice/judge.py 106
The statement / 题面: python practice/judge.py 106 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/106)
"""

import math

import numpy as np
import torch
from torch import Tensor


# Given: do not change / 给定代码，不要修改
@torch._dynamo.disable
def opaque_gelu(x: torch.Tensor) -> torch.Tensor:
    a = x.detach().to(torch.float32).cpu().numpy()
    y = 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a**3)))
    return torch.from_numpy(y).to(dtype=x.dtype, device=x.device)


# TODO: @torch.library.custom_op("ex106::gelu", mutates_args=())
#       def gelu(x: Tensor) -> Tensor: ...   (calls opaque_gelu / 调用 opaque_gelu)

# TODO: @gelu.register_fake — shape / dtype / device only, no data / 只给形状、dtype、设备，不读数据


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    """gelu(x @ w1) @ w2."""
    # TODO: go through torch.ops.ex106.gelu instead of calling opaque_gelu directly:
    #       this call is a graph break under torch.compile.
    # TODO: 改为经过 torch.ops.ex106.gelu，而不是直接调用 opaque_gelu：这一调用在 torch.compile 下是图断点。
    return opaque_gelu(x @ w1) @ w2
