"""Exercise 103, public tests: one case for each lesson of the hidden checks (what "Run" runs).

Your operator is reached only through torch.ops.ex103.silu_and_mul (see probes.py for how).
"""

import pytest
import torch

from judge.report.feedback import msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


def test_op_registered_under_ex103(probe, hints):
    assert probe("op_exists", hint=hints["op_exists"]), msg(
        '没有找到 torch.ops.ex103.silu_and_mul：custom_op 的名字应为 "ex103::silu_and_mul"',
        'torch.ops.ex103.silu_and_mul not found: the custom_op must be named "ex103::silu_and_mul"',
    )


def test_schema_is_functional(probe, hints, check_schema):
    check_schema(probe("schema", hint=hints["schema"]))


@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
def test_eager_matches_formula(probe, hints, make_input, check_eager, dtype):
    x = make_input(1, (3, 16), dtype)
    check_eager(probe("eager", x, hint=hints["eager"]), x)


def test_on_meta_tensors(probe, hints, check_meta):
    shape = [2, 5, 64]
    obs = probe("meta", shape, BF16, hint=hints["meta"])
    check_meta(obs, shape, BF16, ("meta 设备上", "on meta tensors"))
    assert obs["device"] == "meta", msg(
        f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备",
        f"a meta input gave an output on {obs['device']}: the fake implementation must put its output "
        "on the input's device",
    )


@pytest.mark.weight(3)
def test_backward_matches_formula(probe, hints, make_input, make_grad, check_grad):
    x = make_input(2, (4, 10), F64)
    g = make_grad(2, (4, 5), F64)
    obs = probe("backward", x, g, hint=hints["backward"])
    check_grad(obs, x, g, ("eager 反向", "eager backward"))


@pytest.mark.weight(8)
def test_opcheck(probe, hints, make_input, check_opcheck):
    x = make_input(3, (3, 8), F64)
    check_opcheck(probe("run_opcheck", x, hint=hints["opcheck"]), x)


@pytest.mark.weight(22)
def test_compile_dynamic_shapes_without_recompiling(probe, hints, make_input, check_compiled):
    xs = [make_input(4 + i, shape, F32) for i, shape in enumerate([(3, 8), (5, 12), (2, 6)])]
    check_compiled(probe("compiled_shapes", xs, hint=hints["compiled"]), xs)
