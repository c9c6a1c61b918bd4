"""Exercise 105: dispatch keys, and an autocast rule for a custom operator.
练习 105：分发键，以及给自定义算子注册 autocast 规则。

Fill in the TODOs. Judge locally with: python practice/judge.py 105   (add --public for the public tests only)
补全各个 TODO。本地判题：python practice/judge.py 105（只跑公开测试加 --public）
The statement / 题面: python practice/judge.py 105 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/105)
"""

import torch


def dispatch_keys(t: torch.Tensor) -> list[str]:
    """The names of the dispatch keys of t, in the order torch prints its DispatchKeySet:
    for torch.randn(3), ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"].
    t 的各个分发键的名字，顺序与 torch 打印它的 DispatchKeySet 时相同：
    torch.randn(3) 的是 ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]。"""
    # TODO: torch._C._dispatch_keys(t)
    # TODO：torch._C._dispatch_keys(t)
    return []


@torch.library.custom_op("ex105::scaled_dot", mutates_args=())
def scaled_dot(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    """(a * b).sum(-1) * scale for a and b of the same shape [..., D].
    a、b 形状相同 [..., D] 时的 (a * b).sum(-1) * scale。"""
    # TODO
    raise NotImplementedError("scaled_dot")


# TODO: a fake implementation (scaled_dot.register_fake) and an autocast rule for CPU
#       (torch.library.register_autocast) that runs scaled_dot in bfloat16.
# TODO：一个 fake 实现（scaled_dot.register_fake），以及一条 CPU 的 autocast 规则
#       （torch.library.register_autocast），让 scaled_dot 在 bfloat16 下计算。
