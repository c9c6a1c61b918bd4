"""Exercise 103, public tests: a smaller version of the hidden checks (what "Run" runs).

Your operator is reached only through torch.ops.ex103.silu_and_mul (see probes.py for how).
"""

import pytest
import torch

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


def test_op_registered_under_ex103(probe):
    assert probe("op_exists", hint="查找算子时出错"), (
        "没有找到 torch.ops.ex103.silu_and_mul：custom_op 的名字应为 \"ex103::silu_and_mul\"")


def test_schema_is_functional(probe, check_schema):
    check_schema(probe("schema", hint="读取 schema 时出错"))


@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
def test_eager_matches_formula(probe, make_input, check_out, dtype):
    x = make_input(1, (3, 16), dtype)
    obs = probe("eager", x, hint="eager 调用 silu_and_mul 时出错")
    check_out(obs["out"], x, "eager 调用")


def test_on_meta_tensors(probe, check_meta):
    shape = [2, 5, 64]
    obs = probe("meta", shape, BF16, hint="在 meta 设备上调用 silu_and_mul 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    check_meta(obs, shape, BF16, "meta 设备上")
    assert obs["device"] == "meta", f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备"


def test_backward_matches_formula(probe, make_input, make_grad, check_grad):
    x = make_input(2, (4, 10), F64)
    g = make_grad(2, (4, 5), F64)
    obs = probe("backward", x, g, hint="对 silu_and_mul 做反向时出错")
    check_grad(obs, x, g, "eager 反向")


def test_opcheck(probe, make_input, check_opcheck):
    x = make_input(3, (3, 8), F64)
    check_opcheck(probe("run_opcheck", x, hint="opcheck 出错"))


def test_compile_dynamic_shapes_without_recompiling(probe, make_input, check_out):
    xs = [make_input(4 + i, shape, F32) for i, shape in enumerate([(3, 8), (5, 12), (2, 6)])]
    obs = probe("compiled_shapes", xs,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\", dynamic=True) 下调用 silu_and_mul 出错")
    for x, out in zip(xs, obs["outs"]):
        check_out(out, x, f"torch.compile 下（输入形状 {list(x.shape)}）")
    assert obs["graphs"] == 1, (
        f"换了 3 种同为二维的形状，Dynamo 编译了 {obs['graphs']} 次（应为 1 次）："
        "fake 实现把符号大小变成了具体的 int（例如 int(x.shape[-1])），每换一个形状就要重新编译")
