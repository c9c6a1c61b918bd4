"""Exercise 103, hidden tests: variants of the public cases (dtypes, 1-D to 4-D, d = 1, more shapes).

Everything goes through torch.ops.ex103.silu_and_mul inside the worker (see probes.py); every
expected value is computed here from the inputs. Inputs come from fixed seeds. Each case declares
what it checks with @pytest.mark.hint: that, not its inputs, is what a learner sees.
"""

import pytest
import torch

from judge.report.feedback import msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


@pytest.mark.hint("注册：算子名 ex103::silu_and_mul", "registration: the operator name ex103::silu_and_mul")
def test_op_registered_under_ex103(probe, hints):
    assert probe("op_exists", hint=hints["op_exists"]), msg(
        '没有找到 torch.ops.ex103.silu_and_mul：custom_op 的名字应为 "ex103::silu_and_mul"',
        'torch.ops.ex103.silu_and_mul not found: the custom_op must be named "ex103::silu_and_mul"',
    )


@pytest.mark.hint("schema：一个 Tensor 参数，不声明修改", "schema: one Tensor argument, nothing declared as written")
def test_schema_is_functional_with_one_tensor_argument(probe, hints, check_schema):
    check_schema(probe("schema", hint=hints["schema"]))


# ================================================================ forward

EAGER_CASES = [
    pytest.param(
        101,
        (4, 32),
        F32,
        id="float32-2d",
        marks=pytest.mark.hint("eager：float32 二维输入的数值", "eager: values for a 2-D float32 input"),
    ),
    pytest.param(
        102,
        (2, 3, 24),
        F64,
        id="float64-3d",
        marks=pytest.mark.hint(
            "eager：float64 输入按 float64 精度计算", "eager: a float64 input, computed at float64 precision"
        ),
    ),
    pytest.param(
        103,
        (3, 5, 256),
        BF16,
        id="bfloat16-3d",
        marks=pytest.mark.hint(
            "eager：bfloat16 输入，输出仍是 bfloat16", "eager: a bfloat16 input, the output still bfloat16"
        ),
    ),
    pytest.param(104, (18,), F32, id="float32-1d", marks=pytest.mark.hint("eager：一维输入", "eager: a 1-D input")),
    pytest.param(
        105, (2, 2, 3, 8), F64, id="float64-4d", marks=pytest.mark.hint("eager：四维输入", "eager: a 4-D input")
    ),
    pytest.param(
        106,
        (5, 2),
        F32,
        id="float32-last-dim-2",
        marks=pytest.mark.hint("eager：最后一维为 2（d = 1）", "eager: a last dimension of 2 (d = 1)"),
    ),
    pytest.param(
        107,
        (1, 7, 1024),
        BF16,
        id="bfloat16-wide",
        marks=pytest.mark.hint(
            "eager：最后一维很宽的 bfloat16 输入", "eager: a bfloat16 input with a wide last dimension"
        ),
    ),
]


@pytest.mark.parametrize("seed,shape,dtype", EAGER_CASES)
def test_eager_matches_formula(probe, hints, make_input, check_eager, seed, shape, dtype):
    x = make_input(seed, shape, dtype)
    check_eager(probe("eager", x, hint=hints["eager"]), x)


META_CASES = [
    pytest.param(
        (2, 7, 8192),
        BF16,
        id="bfloat16-3d",
        marks=pytest.mark.hint(
            "meta：三维 bfloat16 输入的形状、dtype 与设备", "meta: shape, dtype and device for a 3-D bfloat16 input"
        ),
    ),
    pytest.param((6,), F32, id="float32-1d", marks=pytest.mark.hint("meta：一维输入", "meta: a 1-D input")),
    pytest.param(
        (3, 2),
        F64,
        id="float64-last-dim-2",
        marks=pytest.mark.hint("meta：最后一维为 2（d = 1）", "meta: a last dimension of 2 (d = 1)"),
    ),
]


@pytest.mark.parametrize("shape,dtype", META_CASES)
def test_on_meta_tensors(probe, hints, check_meta, shape, dtype):
    obs = probe("meta", list(shape), dtype, hint=hints["meta"])
    check_meta(obs, shape, dtype, ("meta 设备上", "on meta tensors"))
    assert obs["device"] == "meta", msg(
        f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备",
        f"a meta input gave an output on {obs['device']}: the fake implementation must put its output "
        "on the input's device",
    )


@pytest.mark.hint(
    "FakeTensorMode：得到 cpu 上的 FakeTensor，形状与 dtype 正确",
    "FakeTensorMode: a FakeTensor on cpu with the right shape and dtype",
)
def test_under_fake_tensor_mode(probe, hints, make_input, check_meta):
    x = make_input(108, (3, 10), F64)
    obs = probe("fake", x, hint=hints["fake"])
    check_meta(obs, [3, 10], F64, ("FakeTensorMode 下", "under FakeTensorMode"))
    assert obs["type"] == "FakeTensor" and obs["device"] == "cpu", msg(
        f"FakeTensorMode 下应得到 cpu 上的 FakeTensor，得到 {obs['type']}（{obs['device']}）",
        f"under FakeTensorMode the output should be a FakeTensor on cpu, got {obs['type']} ({obs['device']})",
    )


@pytest.mark.hint("opcheck：三维 float64 输入", "opcheck on a 3-D float64 input")
@pytest.mark.weight(8)
def test_opcheck(probe, hints, make_input, check_opcheck):
    x = make_input(109, (2, 3, 12), F64)
    check_opcheck(probe("run_opcheck", x, hint=hints["opcheck"]), x)


# ================================================================ backward


@pytest.mark.parametrize(
    "seed,shape,dtype",
    [
        pytest.param(
            201,
            (2, 3, 16),
            F64,
            id="float64-3d",
            marks=pytest.mark.hint("反向：三维 float64 输入", "backward on a 3-D float64 input"),
        ),
        pytest.param(
            202,
            (5, 24),
            F32,
            id="float32-2d",
            marks=pytest.mark.hint("反向：float32 输入", "backward on a float32 input"),
        ),
    ],
)
@pytest.mark.weight(3)
def test_backward_matches_formula(probe, hints, make_input, make_grad, out_shape, check_grad, seed, shape, dtype):
    x = make_input(seed, shape, dtype)
    g = make_grad(seed, out_shape(list(shape)), dtype)
    obs = probe("backward", x, g, hint=hints["backward"])
    check_grad(obs, x, g, ("eager 反向", "eager backward"))


@pytest.mark.hint("反向：float64 的 gradcheck", "backward: gradcheck in float64")
@pytest.mark.weight(3)
def test_gradcheck_float64(probe, make_input, check_gradcheck):
    check_gradcheck(probe, make_input(203, (2, 6), F64, scale=1.0))


# ================================================================ torch.compile


@pytest.mark.hint("torch.compile：更多二维形状，只编译一次", "torch.compile: more 2-D shapes, compiled only once")
@pytest.mark.weight(22)
def test_compile_dynamic_shapes_without_recompiling(probe, hints, make_input, check_compiled):
    shapes = [(4, 16), (6, 10), (3, 4), (8, 40)]
    xs = [make_input(301 + i, shape, F32) for i, shape in enumerate(shapes)]
    check_compiled(probe("compiled_shapes", xs, hint=hints["compiled"]), xs)


@pytest.mark.hint("torch.compile：三维输入的前向与反向", "torch.compile: forward and backward on 3-D inputs")
@pytest.mark.weight(16)
def test_compile_dynamic_forward_and_backward(probe, hints, make_input, make_grad, out_shape, check_out, check_grad):
    shapes = [(2, 3, 12), (4, 5, 8)]
    xs = [make_input(401 + i, shape, F32) for i, shape in enumerate(shapes)]
    gs = [make_grad(401 + i, out_shape(list(shape)), F32) for i, shape in enumerate(shapes)]
    obs = probe("compiled_backward", xs, gs, hint=hints["compiled_backward"])
    for x, g, item in zip(xs, gs, obs):
        shape = list(x.shape)
        check_out(
            item["out"], x, (f"torch.compile 下（输入形状 {shape}）", f"under torch.compile (input shape {shape})")
        )
        check_grad(
            item,
            x,
            g,
            (f"torch.compile 下（输入形状 {shape}）的反向", f"backward under torch.compile (input shape {shape})"),
        )
