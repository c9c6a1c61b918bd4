"""Exercise 100, public tests: a smaller version of the hidden checks (what "Run" runs).

Your operators are reached only through torch.ops.ex100.* (see probes.py for exactly how).
"""

import pytest
import torch

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


@pytest.mark.parametrize("name", ["kv_write", "rms_norm"])
def test_op_registered_under_ex100(probe, name):
    assert probe("op_exists", name, hint="查找算子时出错"), (
        f"没有找到 torch.ops.ex100.{name}：custom_op 的名字应为 \"ex100::{name}\"")


def test_kv_write_schema_declares_exactly_the_two_caches(probe):
    s = probe("schema", "kv_write", hint="读取 kv_write 的 schema 时出错")
    assert s is not None, "没有找到 torch.ops.ex100.kv_write"
    written = {a["name"] for a in s["arguments"] if a["is_write"]}
    for name in ("k_cache", "v_cache"):
        assert name in written, (
            f"kv_write 写了 {name}，但 schema 没有把它声明为被修改（mutates_args 缺少 {name}）")
    extra = sorted(written - {"k_cache", "v_cache"})
    assert not extra, f"kv_write 只读 {extra}，schema 却声明它们被修改（mutates_args 多了，或用了 \"unknown\"）"


def test_rms_norm_schema_is_functional(probe):
    s = probe("schema", "rms_norm", hint="读取 rms_norm 的 schema 时出错")
    assert s is not None, "没有找到 torch.ops.ex100.rms_norm"
    written = [a["name"] for a in s["arguments"] if a["is_write"]]
    assert not written, f"rms_norm 不修改输入，schema 却声明修改了 {written}（mutates_args 应为空）"
    assert [a["name"] for a in s["arguments"]] == ["x", "weight", "eps"], (
        f"rms_norm 的参数应为 (x, weight, eps)：{s['text']}")


def test_kv_write_eager_writes_in_place(probe, make_kv, check_kv):
    inputs = make_kv(1, 8, (4,), 3, F32)
    obs = probe("kv_write_eager", *inputs, hint="eager 调用 kv_write 时出错")
    check_kv(obs, inputs, "eager 调用 kv_write 后")
    assert obs["returned"] is None, f"kv_write 应返回 None，实际返回了 {obs['returned']}"


def test_kv_write_compiled_fullgraph_aot_eager(probe, make_kv, check_kv):
    inputs = make_kv(2, 8, (4,), 3, F32)
    obs = probe("kv_write_compiled", *inputs,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\") 编译调用 kv_write 的函数时出错")
    check_kv(obs, inputs, "torch.compile(backend=\"aot_eager\") 下", compiled=True)


@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
def test_rms_norm_eager_matches_formula(probe, make_rms, rms_expected, check_rms_out, dtype):
    x, w, _ = make_rms(3, (2, 3, 16), dtype)
    obs = probe("rms_norm_eager", x, w, 1e-6, hint="eager 调用 rms_norm 时出错")
    check_rms_out(obs["out"], rms_expected(x, w, 1e-6), x, "eager 调用 rms_norm")


def test_rms_norm_on_meta_tensors(probe):
    shape = [2, 5, 64]
    obs = probe("rms_norm_meta", shape, BF16,
                hint="在 meta 设备上调用 rms_norm 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    assert obs["is_tensor"], "rms_norm 在 meta 设备上应返回一个张量"
    assert obs["device"] == "meta", (
        f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备（例如 torch.empty_like(x)）")
    assert obs["shape"] == shape, f"meta 设备上输出形状是 {obs['shape']}，应为 {shape}"
    assert obs["dtype"] == "torch.bfloat16", f"meta 设备上输出 dtype 是 {obs['dtype']}，应为 torch.bfloat16"


def test_rms_norm_backward_matches_formula(probe, make_rms, rms_expected_grads, check_grads):
    x, w, g = make_rms(4, (3, 8), F64)
    obs = probe("rms_norm_backward", x, w, 0.1, g,
                hint="对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值，eps 为 None）")
    dx, dw = rms_expected_grads(x, w, 0.1, g)
    check_grads(obs, dx, dw, F64, "反向")


def test_rms_norm_gradcheck_float64(probe, make_rms):
    x, w, _ = make_rms(5, (2, 5), F64)
    obs = probe("rms_norm_gradcheck", x, w, 0.1,
                hint="gradcheck 对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值）")
    assert obs["passed"], f"gradcheck 失败：反向公式与数值梯度不一致（{obs['message']}）"


def test_kv_write_opcheck(probe, make_kv, check_opcheck):
    inputs = make_kv(6, 8, (2, 2), 3, F64)
    result = probe("kv_write_opcheck", *inputs, hint="opcheck(kv_write) 出错")
    check_opcheck(result, "kv_write")
