"""Exercise 106, hidden tests: more dtypes, ranks and shapes than the public ones; same lessons.

Everything goes through probes.py in the worker; every expected value is computed here from seeded inputs.
"""

import pytest
import torch

from judge.report.feedback import msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16

EAGER_HINT = msg("eager 调用 ex106::gelu 时出错", "calling ex106::gelu eagerly failed")
META_HINT = msg(
    "在 meta / fake 张量上调用 ex106::gelu 出错：需要不读数据的 fake 实现",
    "calling ex106::gelu on a meta / fake tensor failed: it needs a fake that reads no data",
)
EXPLAIN_HINT = msg(
    "Dynamo 捕获 mlp 时出错（fake 实现缺失或有误？）", "Dynamo failed to capture mlp (is the fake missing or wrong?)"
)
COMPILE_HINT = msg(
    'torch.compile(mlp, fullgraph=True, backend="aot_eager") 出错：fullgraph=True 不允许图断点',
    'torch.compile(mlp, fullgraph=True, backend="aot_eager") failed: fullgraph=True allows no graph break',
)


@pytest.mark.hint("算子以 ex106::gelu 注册", "the operator is registered as ex106::gelu")
def test_op_registered_under_ex106(probe):
    assert probe("op_exists", hint=msg("查找算子时出错", "looking up the operator failed")), msg(
        "没有找到 torch.ops.ex106.gelu", "torch.ops.ex106.gelu not found"
    )


@pytest.mark.hint(
    "schema：一个 Tensor 参数，返回新 Tensor，不修改输入",
    "schema: one Tensor argument, a new Tensor returned, nothing written",
)
def test_schema_is_functional(probe, check_schema):
    check_schema(probe("schema", hint=msg("读取 schema 时出错", "reading the schema failed")))


EAGER_CASES = [
    (101, (37,), F32, 2.0),
    (102, (3, 24), F64, 2.0),
    (103, (2, 5, 33), BF16, 2.0),
    (104, (2, 2, 3, 5), F32, 2.0),
    (105, (8, 9), F64, 8.0),
    (106, (1,), BF16, 2.0),
]


@pytest.mark.hint(
    "eager 数值：float32 / float64 / bfloat16，一到四维", "eager values: float32 / float64 / bfloat16, 1-D to 4-D"
)
@pytest.mark.parametrize(
    "case",
    EAGER_CASES,
    ids=["float32-1d", "float64-2d", "bfloat16-3d", "float32-4d", "float64-large-values", "bfloat16-one-element"],
)
def test_gelu_matches_formula(probe, make_input, check_gelu, case):
    seed, shape, dtype, scale = case
    x = make_input(seed, shape, dtype, scale)
    check_gelu(probe("eager", x, hint=EAGER_HINT), x)


@pytest.mark.hint("meta 张量上的形状、dtype 与设备", "shape, dtype and device on meta tensors")
@pytest.mark.parametrize(
    "shape,dtype", [([7], F64), ([2, 3, 4, 5], F32), ([5, 1], BF16)], ids=["float64-1d", "float32-4d", "bfloat16-2d"]
)
def test_gelu_on_meta_tensors(probe, check_meta, shape, dtype):
    check_meta(probe("meta", shape, dtype, hint=META_HINT), shape, dtype, "meta", "meta 张量上", "on a meta tensor")


@pytest.mark.hint("FakeTensorMode 下的形状、dtype 与设备", "shape, dtype and device under FakeTensorMode")
@pytest.mark.parametrize("dtype", [F64, BF16], ids=["float64", "bfloat16"])
def test_gelu_under_fake_tensor_mode(probe, make_input, check_meta, dtype):
    x = make_input(201, (3, 10), dtype)
    obs = probe("fake", x, hint=META_HINT)
    check_meta(obs, [3, 10], dtype, "cpu", "FakeTensorMode 下", "under FakeTensorMode")
    assert obs["type"] == "FakeTensor", msg(
        f"FakeTensorMode 下应得到 FakeTensor，得到 {obs['type']}",
        f"under FakeTensorMode the result must be a FakeTensor, got {obs['type']}",
    )


@pytest.mark.hint("opcheck：float64 三维与 bfloat16 一维", "opcheck: float64 3-D and bfloat16 1-D")
@pytest.mark.parametrize("shape,dtype", [((2, 3, 6), F64), ((11,), BF16)], ids=["float64-3d", "bfloat16-1d"])
def test_opcheck(probe, make_input, check_opcheck, shape, dtype):
    x = make_input(301, shape, dtype)
    check_opcheck(probe("run_opcheck", x, hint=msg("opcheck 出错", "opcheck failed")), x)


@pytest.mark.hint("eager 下的 mlp 数值（float64）", "mlp's eager values (float64)")
def test_mlp_eager_matches_formula(probe, make_mlp, check_mlp):
    x, w1, w2 = make_mlp(401, 5, 12, 24, F64)
    out = probe("mlp_eager", x, w1, w2, hint=msg("eager 调用 mlp 出错", "calling mlp eagerly failed"))
    check_mlp(out, x, w1, w2, "eager", "eager")


@pytest.mark.hint(
    "explain：一张图、零个断点，图中调用一次 ex106::gelu（float64，三维 x）",
    "explain: one graph, no break, ex106::gelu called once in it (float64, 3-D x)",
)
def test_explain_one_graph_no_breaks(probe, make_mlp, make_input, check_explain):
    _, w1, w2 = make_mlp(501, 1, 12, 20, F64)
    x = make_input(502, (2, 3, 12), F64, 1.0)
    check_explain(probe("explain", x, w1, w2, hint=EXPLAIN_HINT))


@pytest.mark.hint("fullgraph 编译后的 mlp 数值（float64）", "mlp's values compiled with fullgraph=True (float64)")
def test_compile_fullgraph_matches_eager(probe, make_mlp, check_mlp):
    x, w1, w2 = make_mlp(601, 7, 12, 20, F64)
    obs = probe("compiled", [x], w1, w2, False, hint=COMPILE_HINT)
    check_mlp(obs["outs"][0], x, w1, w2, "torch.compile 下", "under torch.compile")


@pytest.mark.hint(
    "dynamic=True：四种批大小只编译一次，数值正确（float64）",
    "dynamic=True: four batch sizes, one compilation, right values (float64)",
)
@pytest.mark.weight(11)
def test_compile_dynamic_batch_sizes_one_graph(probe, make_mlp, check_dynamic):
    batches = [2, 6, 11, 4]
    _, w1, w2 = make_mlp(701, 1, 12, 20, F64)
    xs = [make_mlp(710 + b, b, 12, 20, F64)[0] for b in batches]
    obs = probe("compiled", xs, w1, w2, True, hint=COMPILE_HINT)
    check_dynamic(obs, xs, w1, w2)
