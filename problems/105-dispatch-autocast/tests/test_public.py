"""Exercise 105, public tests: a smaller version of the hidden checks (what "Run" / --public runs).

dispatch_keys: the checker describes a tensor, probes.make_tensor builds it on both sides, and
the expected names come from torch._C._dispatch_keys here. scaled_dot: reached only through
torch.ops.ex105.scaled_dot, compared with a float64 computation of (a * b).sum(-1) * scale.
"""

import pytest
import torch

F32, BF16 = torch.float32, torch.bfloat16

KEY_CASES = [
    ("chapter-cpu-float32", {"shape": [3]}),
    ("requires-grad", {"shape": [2, 3], "requires_grad": True}),
    ("meta-device", {"shape": [2, 3], "device": "meta"}),
    ("inference-mode", {"shape": [2, 3], "inference": True}),
    ("conj-view", {"shape": [4], "dtype": "complex64", "view": "conj"}),
]


@pytest.mark.parametrize("desc", [c[1] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
def test_dispatch_keys(probe, ex, desc):
    obs = probe("dispatch_keys", desc, hint="dispatch_keys(t) 出错")
    ex.check_keys(obs, desc, "plain", f"张量 {desc}")


def test_scaled_dot_schema(probe, ex):
    obs = probe("op_schema", hint="读取 ex105::scaled_dot 的 schema 时出错")
    assert obs["schema"] is not None, "没有找到 torch.ops.ex105.scaled_dot：custom_op 的名字应为 \"ex105::scaled_dot\""
    assert obs["schema"] == ex.EXPECTED_SCHEMA, f"schema 应为 {ex.EXPECTED_SCHEMA}，实际是 {obs['schema']}"


def test_scaled_dot_eager_float32(probe, ex, check_values):
    a, b = ex.make_pair(1, (4, 5, 16))
    obs = probe("scaled_dot", a, b, 0.25, hint="调用 scaled_dot(a, b, 0.25) 出错")
    check_values(obs, a, b, 0.25, F32, "float32 输入、不开 autocast")


def test_scaled_dot_on_meta_tensors(probe):
    obs = probe("scaled_dot_meta", [2, 7, 32], F32, 1.0,
                hint="在 meta 设备上调用 scaled_dot 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    assert obs["is_tensor"], "meta 设备上 scaled_dot 应返回一个张量"
    assert obs["device"] == "meta", f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备"
    assert obs["shape"] == [2, 7], f"meta 设备上输出形状是 {obs['shape']}，应为 [2, 7]（最后一维被求和掉）"
    assert obs["dtype"] == "torch.float32", f"meta 设备上输出 dtype 是 {obs['dtype']}，应为 torch.float32"


def test_scaled_dot_under_autocast_computes_in_bfloat16(probe, ex, check_values):
    a, b = ex.make_pair(2, (3, 64))
    obs = probe("scaled_dot", a, b, 0.5, autocast=True,
                hint="在 torch.autocast(\"cpu\", dtype=torch.bfloat16) 下调用 scaled_dot 出错")
    if obs.get("dtype") == str(F32):
        raise AssertionError(
            "autocast（bf16）下 float32 输入得到了 float32 的输出：要用 torch.library.register_autocast "
            "给 scaled_dot 注册 CPU 的 autocast 规则（AutocastCPU 这一层把输入转成 bfloat16）")
    assert obs.get("dtype") == str(BF16), (
        f"autocast（bf16）下 float32 输入得到了 {obs.get('dtype')} 的输出，应为 torch.bfloat16"
        f"（register_autocast 的 cast_inputs 应为 torch.bfloat16）")
    check_values(obs, a, b, 0.5, BF16, "autocast（bf16）下")


def test_scaled_dot_opcheck(probe, ex):
    a, b = ex.make_pair(3, (3, 8))
    result = probe("scaled_dot_opcheck", a, b, 2.0, hint="opcheck(scaled_dot) 出错")
    ex.check_opcheck(result, "opcheck(scaled_dot)")
