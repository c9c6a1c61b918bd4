"""Exercise 106, public tests: a smaller version of the hidden checks (what "Run" runs).

The operator is reached only through torch.ops.ex106.gelu; mlp is called as your Python function
(see probes.py for how).
"""

import pytest
import torch

from judge.report.feedback import msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16

EXPLAIN_HINT = msg(
    "Dynamo 捕获 mlp 时出错（fake 实现缺失或有误？）", "Dynamo failed to capture mlp (is the fake missing or wrong?)"
)
COMPILE_HINT = msg(
    'torch.compile(mlp, fullgraph=True, backend="aot_eager") 出错：fullgraph=True 不允许图断点',
    'torch.compile(mlp, fullgraph=True, backend="aot_eager") failed: fullgraph=True allows no graph break',
)


def test_op_registered_under_ex106(probe):
    assert probe("op_exists", hint=msg("查找算子时出错", "looking up the operator failed")), msg(
        '没有找到 torch.ops.ex106.gelu：custom_op 的名字应为 "ex106::gelu"',
        'torch.ops.ex106.gelu not found: the custom_op\'s name must be "ex106::gelu"',
    )


def test_schema_is_functional(probe, check_schema):
    check_schema(probe("schema", hint=msg("读取 schema 时出错", "reading the schema failed")))


@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
def test_gelu_matches_formula(probe, make_input, check_gelu, dtype):
    x = make_input(1, (4, 16), dtype)
    check_gelu(probe("eager", x, hint=msg("eager 调用 ex106::gelu 时出错", "calling ex106::gelu eagerly failed")), x)


def test_gelu_on_meta_tensors(probe, check_meta):
    shape = [2, 3, 8]
    obs = probe(
        "meta",
        shape,
        BF16,
        hint=msg(
            "在 meta 张量上调用 ex106::gelu 出错：需要 register_fake 注册 fake 实现，且它不能读数据",
            "calling ex106::gelu on a meta tensor failed: it needs a fake (register_fake) that reads no data",
        ),
    )
    check_meta(obs, shape, BF16, "meta", "meta 张量上", "on a meta tensor")


def test_opcheck(probe, make_input, check_opcheck):
    x = make_input(2, (3, 8), F32)
    check_opcheck(probe("run_opcheck", x, hint=msg("opcheck 出错", "opcheck failed")), x)


def test_mlp_eager_matches_formula(probe, make_mlp, check_mlp):
    x, w1, w2 = make_mlp(3, 4, 8, 16, F32)
    out = probe("mlp_eager", x, w1, w2, hint=msg("eager 调用 mlp 出错", "calling mlp eagerly failed"))
    check_mlp(out, x, w1, w2, "eager", "eager")


def test_explain_one_graph_no_breaks(probe, make_mlp, check_explain):
    x, w1, w2 = make_mlp(4, 4, 8, 16, F32)
    check_explain(probe("explain", x, w1, w2, hint=EXPLAIN_HINT))


def test_compile_fullgraph_matches_eager(probe, make_mlp, check_mlp):
    x, w1, w2 = make_mlp(5, 6, 8, 16, F32)
    obs = probe("compiled", [x], w1, w2, False, hint=COMPILE_HINT)
    check_mlp(obs["outs"][0], x, w1, w2, "torch.compile 下", "under torch.compile")


@pytest.mark.weight(11)
def test_compile_dynamic_batch_sizes_one_graph(probe, make_mlp, check_dynamic):
    batches = [3, 5, 9]
    _, w1, w2 = make_mlp(6, 1, 8, 16, F32)
    xs = [make_mlp(60 + b, b, 8, 16, F32)[0] for b in batches]
    obs = probe("compiled", xs, w1, w2, True, hint=COMPILE_HINT)
    check_dynamic(obs, xs, w1, w2)
