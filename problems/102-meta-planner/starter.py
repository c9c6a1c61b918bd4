"""练习 102：在 meta 设备上规划模型，不分配它的权重。
Exercise 102: plan a model on the meta device without allocating its weights.

完成两处 TODO。本地判题：python practice/judge.py 102
Fill in the two TODOs. Judge locally with: python practice/judge.py 102
The statement / 题面: python practice/judge.py 102 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/102)
"""

import torch


def estimate(build) -> dict:
    """build() 返回一个 nn.Module。不分配它的权重，返回
    {"params": int, "param_bytes": int, "buffer_bytes": int}。

    build() returns an nn.Module. Without allocating its weights, return
    {"params": int, "param_bytes": int, "buffer_bytes": int}."""
    # TODO: 在 meta 设备上调用 build()，再计数。
    # TODO: call build() on the meta device, then count.
    return {"params": 0, "param_bytes": 0, "buffer_bytes": 0}


def output_shape(build, input_shape, dtype=torch.long) -> tuple:
    """输入 x 的形状为 input_shape、dtype 为 dtype 时 build()(x) 的形状，不用真实的权重，也不用真实的输入
    （FakeTensorMode）。

    The shape of build()(x) for an input x of shape input_shape and dtype dtype, computed
    without real weights and without a real input (FakeTensorMode)."""
    # TODO
    raise NotImplementedError("output_shape")
