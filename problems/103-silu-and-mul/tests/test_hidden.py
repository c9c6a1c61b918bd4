"""Exercise 103, hidden tests.

Everything goes through torch.ops.ex103.silu_and_mul inside the worker (see probes.py); every
expected value is computed here from the inputs. Inputs come from fixed seeds.
"""

import pytest
import torch

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


def test_op_registered_under_ex103(probe):
    assert probe("op_exists", hint="查找算子时出错"), (
        "没有找到 torch.ops.ex103.silu_and_mul：custom_op 的名字应为 \"ex103::silu_and_mul\"")


def test_schema_is_functional_with_one_tensor_argument(probe, check_schema):
    check_schema(probe("schema", hint="读取 schema 时出错"))


# ================================================================ forward

EAGER_CASES = [
    # seed, shape, dtype
    (101, (4, 32), F32),
    (102, (2, 3, 24), F64),
    (103, (3, 5, 256), BF16),
    (104, (18,), F32),
    (105, (2, 2, 3, 8), F64),
    (106, (5, 2), F32),
    (107, (1, 7, 1024), BF16),
]
EAGER_IDS = ["float32-2d", "float64-3d", "bfloat16-3d", "float32-1d", "float64-4d",
             "float32-last-dim-2", "bfloat16-wide"]


@pytest.mark.parametrize("case", EAGER_CASES, ids=EAGER_IDS)
def test_eager_matches_formula(probe, make_input, check_out, case):
    seed, shape, dtype = case
    x = make_input(seed, shape, dtype)
    obs = probe("eager", x, hint="eager 调用 silu_and_mul 时出错")
    check_out(obs["out"], x, "eager 调用")
    assert not obs["x_changed"], "silu_and_mul 修改了输入 x：它只能读 x，结果写进新张量"
    assert not obs["shares_input_memory"], "silu_and_mul 的输出必须是新张量，不能与输入共享内存"


@pytest.mark.parametrize("shape,dtype", [((2, 7, 8192), BF16), ((6,), F32), ((3, 2), F64)],
                         ids=["bfloat16-3d", "float32-1d", "float64-last-dim-2"])
def test_on_meta_tensors(probe, check_meta, shape, dtype):
    obs = probe("meta", list(shape), dtype,
                hint="在 meta 设备上调用 silu_and_mul 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    check_meta(obs, shape, dtype, "meta 设备上")
    assert obs["device"] == "meta", f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备"


def test_under_fake_tensor_mode(probe, make_input, check_meta):
    x = make_input(108, (3, 10), F64)
    obs = probe("fake", x, hint="在 FakeTensorMode 下调用 silu_and_mul 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    check_meta(obs, [3, 10], F64, "FakeTensorMode 下")
    assert obs["type"] == "FakeTensor" and obs["device"] == "cpu", (
        f"FakeTensorMode 下应得到 cpu 上的 FakeTensor，得到 {obs['type']}（{obs['device']}）")


def test_opcheck(probe, make_input, check_opcheck):
    x = make_input(109, (2, 3, 12), F64)
    check_opcheck(probe("run_opcheck", x, hint="opcheck 出错"))


# ================================================================ backward

@pytest.mark.parametrize("case", [(201, (2, 3, 16), F64), (202, (5, 24), F32)], ids=["float64-3d", "float32-2d"])
def test_backward_matches_formula(probe, make_input, make_grad, out_shape, check_grad, case):
    seed, shape, dtype = case
    x = make_input(seed, shape, dtype)
    g = make_grad(seed, out_shape(list(shape)), dtype)
    obs = probe("backward", x, g, hint="对 silu_and_mul 做反向时出错")
    check_grad(obs, x, g, "eager 反向")


def test_gradcheck_float64(probe, make_input):
    x = make_input(203, (2, 6), F64, scale=1.0)
    obs = probe("run_gradcheck", x, hint="gradcheck 对 silu_and_mul 做反向时出错")
    assert obs["passed"], f"gradcheck 失败：反向公式与数值梯度不一致（{obs['message']}）"


# ================================================================ torch.compile

def test_compile_dynamic_shapes_without_recompiling(probe, make_input, check_out):
    shapes = [(4, 16), (6, 10), (3, 4), (8, 40)]
    xs = [make_input(301 + i, shape, F32) for i, shape in enumerate(shapes)]
    obs = probe("compiled_shapes", xs,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\", dynamic=True) 下调用 silu_and_mul 出错")
    for x, out in zip(xs, obs["outs"]):
        check_out(out, x, f"torch.compile 下（输入形状 {list(x.shape)}）")
    assert obs["graphs"] == 1, (
        f"换了 {len(shapes)} 种同为二维的形状，Dynamo 编译了 {obs['graphs']} 次（应为 1 次）："
        "fake 实现把符号大小变成了具体的 int（例如 int(x.shape[-1])），每换一个形状就要重新编译")


def test_compile_dynamic_forward_and_backward(probe, make_input, make_grad, out_shape, check_out, check_grad):
    shapes = [(2, 3, 12), (4, 5, 8)]
    xs = [make_input(401 + i, shape, F32) for i, shape in enumerate(shapes)]
    gs = [make_grad(401 + i, out_shape(list(shape)), F32) for i, shape in enumerate(shapes)]
    obs = probe("compiled_backward", xs, gs,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\", dynamic=True) 下做前向和反向时出错"
                     "（需要 fake 实现，反向要用 register_autograd 注册）")
    for x, g, item in zip(xs, gs, obs):
        where = f"torch.compile 下（输入形状 {list(x.shape)}）"
        check_out(item["out"], x, where)
        check_grad(item, x, g, where + "的反向")
