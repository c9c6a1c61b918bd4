"""练习 100：自定义算子——原地修改的 schema、fake 实现与反向。
Exercise 100: custom operators: in-place schema, fake implementation and backward.

用 torch.library.custom_op 注册两个算子（名字与签名是固定的，判题只通过 torch.ops.ex100.* 调用它们）：
Register two operators with torch.library.custom_op (names and signatures are fixed; the judge
calls them only through torch.ops.ex100.*):

    ex100::kv_write(Tensor(a0!) k_cache, Tensor(a1!) v_cache, Tensor slots, Tensor k, Tensor v) -> ()
    ex100::rms_norm(Tensor x, Tensor weight, float eps=1e-6) -> Tensor

完整要求见题面。本地判题：python practice/judge.py 100（只跑公开测试加 --public）。
The statement has every requirement. Judge locally: python practice/judge.py 100 (add --public
for the public tests only).
The statement / 题面: python practice/judge.py 100 --statement (or the page: judge serve, http://127.0.0.1:8000/problems/100)
"""

import torch
from torch import Tensor

# ---------------------------------------------------------------- kv_write


# TODO: 声明 kv_write 原地修改了哪些参数（mutates_args）。
# TODO: declare which arguments kv_write mutates in place (mutates_args).
@torch.library.custom_op("ex100::kv_write", mutates_args=())
def kv_write(k_cache: Tensor, v_cache: Tensor, slots: Tensor, k: Tensor, v: Tensor) -> None:
    """把 k 的第 i 行写进 k_cache 的第 slots[i] 行，v 写进 v_cache，原地修改，不返回任何东西。
    Write row i of k into row slots[i] of k_cache, and v into v_cache, in place; return nothing.

    k_cache, v_cache: (N, ...)，不一定连续（可能是同一块缓冲区的视图）；
                      (N, ...), not necessarily contiguous (they may be views of one buffer);
    slots: (S,) int64，互不相同且在 [0, N) 内； / (S,) int64, distinct, in [0, N);
    k, v: (S, ...)，尾部维度和 dtype 与缓存相同。 / (S, ...), with the caches' trailing dims and dtype.
    """
    # TODO: 原地写入两个缓存。
    # TODO: write both caches in place.
    pass


# ---------------------------------------------------------------- rms_norm


@torch.library.custom_op("ex100::rms_norm", mutates_args=())
def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    """x * rsqrt(mean(x**2, dim=-1, keepdim=True) + eps) * weight，返回新张量，dtype 与 x 相同。
    x * rsqrt(mean(x**2, dim=-1, keepdim=True) + eps) * weight, a new tensor of x's dtype.

    x: (..., D)，weight: (D,)。 / x: (..., D), weight: (D,).
    """
    # TODO: 实现前向。
    # TODO: implement the forward.
    raise NotImplementedError


# TODO: 用 @rms_norm.register_fake 注册 fake 实现：只根据输入的元数据描述输出，不读数据。
#       签名与算子相同，包括默认值：def _(x, weight, eps=1e-6)。
# TODO: register a fake implementation with @rms_norm.register_fake: it describes the output from
#       the inputs' metadata only and reads no data. Same signature as the operator, default
#       included: def _(x, weight, eps=1e-6).


# TODO: 用 rms_norm.register_autograd(backward, setup_context=setup_context) 注册反向：
#       反向返回元组 (grad_x, grad_weight, None)：eps 对应 None。
# TODO: register the backward with rms_norm.register_autograd(backward, setup_context=setup_context):
#       the backward returns the tuple (grad_x, grad_weight, None), None for eps.
