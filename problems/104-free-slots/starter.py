"""Exercise 104: free slots, a custom operator whose output size depends on the data.
练习 104：空闲槽位——输出大小由数据决定的自定义算子。

Register ex104::free_slots(Tensor used) -> Tensor with torch.library.custom_op:
用 torch.library.custom_op 注册 ex104::free_slots(Tensor used) -> Tensor：
  - used is a 1-D bool tensor (True = slot taken); return the indices i where used[i] is
    False, as a new 1-D int64 tensor in ascending order (empty if nothing is free);
    used 是一维 bool 张量（True 表示槽位已占用）；返回所有 used[i] 为 False 的下标 i，
    作为一个新的一维 int64 张量，从小到大（没有空闲槽位时为空）；
  - a fake implementation (register_fake) whose output length comes from
    torch.library.get_ctx().new_dynamic_size(): a fake tensor has no values to count.
    一个 fake 实现（register_fake），输出长度来自 torch.library.get_ctx().new_dynamic_size()：
    fake 张量没有值可数。

Judge it with:  python practice/judge.py 104   (add --public for the public tests only)
本地判题：python practice/judge.py 104（只跑公开测试加 --public）
The statement / 题面: python practice/judge.py 104 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/104)
"""

import torch
from torch import Tensor


@torch.library.custom_op("ex104::free_slots", mutates_args=())
def free_slots(used: Tensor) -> Tensor:
    # TODO: the positions of the False entries, int64, ascending, 1-D
    # TODO：所有 False 的位置，int64，从小到大，一维
    raise NotImplementedError("free_slots")


# TODO: @free_slots.register_fake — a 1-D int64 tensor whose length is a new dynamic size
# TODO：@free_slots.register_fake——一个一维 int64 张量，长度是一个新的动态大小
