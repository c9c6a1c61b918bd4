"""Exercise 100, hidden tests.

Everything goes through torch.ops.ex100.* inside the worker (see probes.py); every expected
value is computed here from the inputs. Inputs come from fixed seeds.
"""

import math

import pytest
import torch

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16
KV_ARGS = ["k_cache", "v_cache", "slots", "k", "v"]
MUTATED = {"k_cache", "v_cache"}


# ================================================================ registration and schema

@pytest.mark.parametrize("name", ["kv_write", "rms_norm"])
def test_op_registered_under_ex100(probe, name):
    assert probe("op_exists", name, hint="查找算子时出错"), (
        f"没有找到 torch.ops.ex100.{name}：custom_op 的名字应为 \"ex100::{name}\"")


@pytest.fixture(scope="module")
def schemas(probe):
    """Both schemas, read once (None for an operator that is not registered)."""
    return {name: probe("schema", name, hint=f"读取 {name} 的 schema 时出错")
            for name in ("kv_write", "rms_norm")}


def _schema(schemas, name):
    s = schemas[name]
    assert s is not None, f"没有找到 torch.ops.ex100.{name}"
    return s


def test_kv_write_schema_arguments_and_returns(schemas):
    kv_schema = _schema(schemas, "kv_write")
    names = [a["name"] for a in kv_schema["arguments"]]
    assert names == KV_ARGS, f"kv_write 的参数应为 {KV_ARGS}，schema 里是 {names}"
    for a in kv_schema["arguments"]:
        assert a["type"] == "Tensor", f"kv_write 的参数 {a['name']} 应是 Tensor，schema 里是 {a['type']}"
    assert kv_schema["returns"] == [], (
        f"kv_write 应该什么都不返回（-> None，schema 为 -> ()）：{kv_schema['text']}")


@pytest.mark.parametrize("arg", KV_ARGS)
def test_kv_write_schema_declares_mutation_of(schemas, arg):
    kv_schema = _schema(schemas, "kv_write")
    info = {a["name"]: a for a in kv_schema["arguments"]}
    assert arg in info, f"kv_write 的 schema 里没有参数 {arg}"
    if arg in MUTATED:
        assert info[arg]["is_write"], (
            f"kv_write 写了 {arg}，但 schema 没有把它声明为被修改（mutates_args 缺少 {arg}）")
    else:
        assert not info[arg]["is_write"], (
            f"kv_write 只读 {arg}，schema 却把它声明为被修改（mutates_args 多了 {arg}，"
            f"或用了 \"unknown\"）")


def test_rms_norm_schema_arguments_and_default_eps(schemas):
    rms_schema = _schema(schemas, "rms_norm")
    args = rms_schema["arguments"]
    got = [(a["name"], a["type"]) for a in args]
    want = [("x", "Tensor"), ("weight", "Tensor"), ("eps", "float")]
    assert got == want, f"rms_norm 的参数应为 (Tensor x, Tensor weight, float eps)，schema 是 {rms_schema['text']}"
    eps = args[2]
    assert eps["has_default"] and eps["default"] is not None and math.isclose(
        eps["default"], 1e-6, rel_tol=1e-9), "rms_norm 的 eps 默认值应为 1e-6"
    returns = rms_schema["returns"]
    assert len(returns) == 1 and returns[0]["type"] == "Tensor", (
        f"rms_norm 应返回一个 Tensor，schema 是 {rms_schema['text']}")


def test_rms_norm_schema_is_functional(schemas):
    rms_schema = _schema(schemas, "rms_norm")
    written = [a["name"] for a in rms_schema["arguments"] if a["is_write"]]
    assert not written, f"rms_norm 不修改输入，schema 却声明修改了 {written}（mutates_args 应为空）"
    assert not any(r["has_alias"] for r in rms_schema["returns"]), (
        "rms_norm 的输出应是新张量，schema 却标注它与输入别名")


# ================================================================ kv_write

KV_CASES = [
    # seed, n, trailing, num_slots, dtype
    (101, 16, (4,), 5, F32),
    (102, 12, (2, 3), 4, F64),
    (103, 9, (), 3, F32),
    (104, 6, (2, 2), 6, F64),
]
KV_IDS = ["float32-2d", "float64-3d", "float32-1d", "float64-3d-every-slot"]


@pytest.mark.parametrize("case", KV_CASES, ids=KV_IDS)
def test_kv_write_eager_writes_in_place(probe, make_kv, check_kv, case):
    inputs = make_kv(*case)
    obs = probe("kv_write_eager", *inputs, hint="eager 调用 kv_write 时出错")
    check_kv(obs, inputs, "eager 调用 kv_write 后")
    _, _, slots, k, v = inputs
    for name, t in (("slots", slots), ("k", k), ("v", v)):
        assert torch.equal(obs[name], t), f"kv_write 改动了只读参数 {name}"
    assert obs["returned"] is None, f"kv_write 应返回 None，实际返回了 {obs['returned']}"


POOL_CASES = [
    # seed, n, trailing, num_slots, dtype, layout (see probes.kv_write_into_pool)
    (108, 10, (4,), 4, F32, "stacked"),
    (109, 12, (2, 3), 5, F64, "halves"),
]
POOL_IDS = ["float32-stacked-pool0-pool1", "float64-noncontiguous-chunk-halves"]


@pytest.mark.parametrize("case", POOL_CASES, ids=POOL_IDS)
def test_kv_write_into_views_of_one_buffer(probe, make_kv, check_kv, case):
    # The caches are views of one buffer, as in a real KV pool; the write must land in that
    # buffer (swapping a cache's storage with .data = ... or set_ leaves the buffer unchanged).
    seed, n, trailing, num_slots, dtype, layout = case
    k_cache, v_cache, slots, k, v = make_kv(seed, n, trailing, num_slots, dtype)
    if layout == "stacked":
        pool = torch.stack([k_cache, v_cache])
    else:
        pool = torch.cat([k_cache, v_cache], dim=-1)
    obs = probe("kv_write_into_pool", pool, layout, slots, k, v,
                hint="对一整块缓冲区的视图调用 kv_write 时出错（缓存可以不连续）")
    got = obs["pool"]
    assert list(got.shape) == list(pool.shape) and got.dtype == pool.dtype, "缓冲区的形状或 dtype 变了"
    views = (got[0], got[1]) if layout == "stacked" else got.chunk(2, dim=-1)
    seen = {"k_cache": views[0], "v_cache": views[1], "same_memory": obs["same_memory"]}
    where = ("kv_write 写入 pool[0] / pool[1] 后，从 pool 看" if layout == "stacked" else
             "kv_write 写入不连续的缓存 pool.chunk(2, dim=-1) 后，从 pool 看")
    check_kv(seen, (k_cache, v_cache, slots, k, v), where)
    assert obs["returned"] is None, f"kv_write 应返回 None，实际返回了 {obs['returned']}"


def test_kv_write_on_meta_tensors(probe):
    obs = probe("kv_write_meta", 32, [2, 8], BF16, 4,
                hint="在 meta 设备上调用 kv_write 出错（fake 实现不能读数据）")
    assert obs["returned"] is None, f"kv_write 在 meta 设备上应返回 None，实际返回了 {obs['returned']}"


def test_kv_write_under_fake_tensor_mode(probe, make_kv):
    inputs = make_kv(105, 10, (3,), 4, F32)
    obs = probe("kv_write_fake", *inputs, hint="在 FakeTensorMode 下调用 kv_write 出错（fake 实现不能读数据）")
    assert obs["returned"] is None, "kv_write 在 FakeTensorMode 下应返回 None"


def test_kv_write_opcheck(probe, make_kv, check_opcheck):
    inputs = make_kv(106, 10, (2, 3), 4, F64)
    result = probe("kv_write_opcheck", *inputs, hint="opcheck(kv_write) 出错")
    check_opcheck(result, "kv_write")


def test_kv_write_compiled_fullgraph_aot_eager(probe, make_kv, check_kv):
    # Same shapes as the public check (the compiled graph is reused), different values.
    inputs = make_kv(107, 8, (4,), 3, F32)
    obs = probe("kv_write_compiled", *inputs,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\") 编译调用 kv_write 的函数时出错")
    check_kv(obs, inputs, "torch.compile(backend=\"aot_eager\") 下", compiled=True)


# ================================================================ rms_norm forward

RMS_CASES = [
    # seed, shape, dtype, eps
    (201, (4, 32), F32, 1e-6),
    (202, (2, 3, 16), F64, 0.25),
    (203, (3, 5, 64), BF16, 1e-6),
    (204, (24,), F32, 1e-5),
    (205, (2, 2, 2, 8), F64, 1e-6),
]
RMS_IDS = ["float32-2d", "float64-3d-eps0.25", "bfloat16-3d", "float32-1d", "float64-4d"]


@pytest.mark.parametrize("case", RMS_CASES, ids=RMS_IDS)
def test_rms_norm_eager_matches_formula(probe, make_rms, rms_expected, check_rms_out, case):
    seed, shape, dtype, eps = case
    x, w, _ = make_rms(seed, shape, dtype)
    obs = probe("rms_norm_eager", x, w, eps, hint="eager 调用 rms_norm 时出错")
    check_rms_out(obs["out"], rms_expected(x, w, eps), x, "eager 调用 rms_norm")
    assert not obs["x_changed"] and not obs["weight_changed"], "rms_norm 不能修改输入 x 或 weight"
    assert not obs["shares_input_memory"], "rms_norm 的输出必须是新张量，不能与输入共享内存"


def test_rms_norm_default_eps_is_1e_6(probe, make_rms, rms_expected, check_rms_out):
    # Small inputs: mean(x^2) is about 1e-6, so the value of eps matters.
    x, w, _ = make_rms(206, (4, 16), F64, scale=1e-3)
    obs = probe("rms_norm_eager", x, w, None, hint="不传 eps 调用 rms_norm 时出错")
    check_rms_out(obs["out"], rms_expected(x, w, 1e-6), x, "不传 eps 调用 rms_norm（eps 默认 1e-6）")


@pytest.mark.parametrize("shape,dtype", [((2, 7, 4096), BF16), ((11,), F32)], ids=["bfloat16-3d", "float32-1d"])
def test_rms_norm_on_meta_tensors(probe, shape, dtype):
    obs = probe("rms_norm_meta", list(shape), dtype,
                hint="在 meta 设备上调用 rms_norm 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    assert obs["is_tensor"], "rms_norm 在 meta 设备上应返回一个张量"
    assert obs["device"] == "meta", (
        f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备（例如 torch.empty_like(x)）")
    assert obs["shape"] == list(shape), f"meta 设备上输出形状是 {obs['shape']}，应为 {list(shape)}"
    assert obs["dtype"] == str(dtype), f"meta 设备上输出 dtype 是 {obs['dtype']}，应为 {dtype}"


def test_rms_norm_under_fake_tensor_mode(probe, make_rms):
    x, w, _ = make_rms(207, (3, 10), F64)
    obs = probe("rms_norm_fake", x, w, 1e-6,
                hint="在 FakeTensorMode 下调用 rms_norm 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    assert obs["is_tensor"] and obs["type"] == "FakeTensor", (
        f"FakeTensorMode 下 rms_norm 应返回 FakeTensor，得到 {obs['type']}")
    assert (obs["shape"], obs["dtype"], obs["device"]) == ([3, 10], "torch.float64", "cpu"), (
        f"FakeTensorMode 下输出元数据不对：{obs['shape']} {obs['dtype']} {obs['device']}")


def test_rms_norm_opcheck(probe, make_rms, check_opcheck):
    x, w, _ = make_rms(208, (3, 8), F64)
    result = probe("rms_norm_opcheck", x, w, 1e-2, hint="opcheck(rms_norm) 出错")
    check_opcheck(result, "rms_norm")


# ================================================================ rms_norm backward

BWD_CASES = [
    (301, (2, 3, 12), F64, 0.1),
    (302, (5, 16), F32, 1e-6),
    (305, (12,), F64, 0.1),
    # Small on purpose: a backward computed natively in bfloat16 (allowed) stays well inside
    # the bfloat16 tolerance here; long reductions in bfloat16 would not.
    (306, (3, 5, 64), BF16, 1e-6),
]


@pytest.mark.parametrize("case", BWD_CASES, ids=["float64-3d-eps0.1", "float32-2d", "float64-1d",
                                                 "bfloat16-3d"])
def test_rms_norm_backward_matches_formula(probe, make_rms, rms_expected_grads, check_grads, case):
    seed, shape, dtype, eps = case
    x, w, g = make_rms(seed, shape, dtype)
    obs = probe("rms_norm_backward", x, w, eps, g,
                hint="对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值，eps 为 None）")
    dx, dw = rms_expected_grads(x, w, eps, g)
    check_grads(obs, dx, dw, dtype, "反向")
    assert not obs["inputs_changed"], "前向 + 反向之后 x 或 weight 被改动了：rms_norm（包括 setup_context 和反向）不能修改输入"


def test_rms_norm_gradcheck_float64(probe, make_rms):
    # A non-default eps: with the default eps PyTorch drops the argument and a backward that
    # returns too few gradients would slip through.
    x, w, _ = make_rms(303, (3, 6), F64)
    obs = probe("rms_norm_gradcheck", x, w, 0.05,
                hint="gradcheck 对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值）")
    assert obs["passed"], f"gradcheck 失败：反向公式与数值梯度不一致（{obs['message']}）"


def test_rms_norm_compiled_fullgraph_aot_eager_forward_backward(
        probe, make_rms, rms_expected, rms_expected_grads, check_rms_out, check_grads):
    x, w, g = make_rms(304, (4, 24), F32)
    eps = 1e-3
    obs = probe("rms_norm_compiled", x, w, eps, g,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\") 下 rms_norm 出错"
                     "（需要 fake 实现，反向要用 register_autograd 注册）")
    where = "torch.compile(backend=\"aot_eager\") 下"
    check_rms_out(obs["out"], rms_expected(x, w, eps), x, where)
    dx, dw = rms_expected_grads(x, w, eps, g)
    check_grads(obs, dx, dw, F32, where + "的反向")
