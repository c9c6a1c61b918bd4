"""Exercise 105, hidden tests: more tensors for dispatch_keys (dtypes, views, layouts, fake
tensors, functorch transforms) and scaled_dot in more shapes, dtypes and settings."""

import pytest
import torch

F16, F32, F64, BF16 = torch.float16, torch.float32, torch.float64, torch.bfloat16

KEY_CASES = [
    ("chapter-cpu-float32", {"shape": [3]}, "plain"),
    ("float64", {"dtype": "float64"}, "plain"),
    ("int64", {"dtype": "int64"}, "plain"),
    ("bool", {"dtype": "bool"}, "plain"),
    ("bfloat16", {"dtype": "bfloat16"}, "plain"),
    ("requires-grad", {"requires_grad": True}, "plain"),
    ("parameter", {"kind": "parameter"}, "plain"),
    ("transpose-view", {"shape": [3, 4], "view": "transpose"}, "plain"),
    ("slice-view", {"shape": [3, 4], "view": "slice"}, "plain"),
    ("expand-view", {"shape": [3], "view": "expand"}, "plain"),
    ("detached-from-grad", {"requires_grad": True, "view": "detach"}, "plain"),
    ("meta", {"device": "meta"}, "plain"),
    ("meta-requires-grad", {"device": "meta", "requires_grad": True}, "plain"),
    ("meta-inference", {"device": "meta", "inference": True}, "plain"),
    ("inference", {"inference": True}, "plain"),
    ("inference-slice-view", {"shape": [3, 4], "inference": True, "view": "slice"}, "plain"),
    ("conj-view", {"dtype": "complex64", "view": "conj"}, "plain"),
    ("conj-view-requires-grad", {"dtype": "complex64", "view": "conj", "requires_grad": True}, "plain"),
    ("neg-view", {"view": "neg"}, "plain"),
    ("sparse-coo", {"shape": [3, 3], "kind": "sparse_coo"}, "plain"),
    ("sparse-csr", {"shape": [3, 3], "kind": "sparse_csr"}, "plain"),
    ("zero-tensor", {"kind": "zero"}, "plain"),
    ("zero-tensor-inference", {"kind": "zero", "inference": True}, "plain"),
    ("nested", {"kind": "nested"}, "plain"),
    ("tensor-subclass", {"kind": "subclass"}, "plain"),
    ("tensor-subclass-on-meta", {"kind": "subclass", "device": "meta"}, "plain"),
    ("inside-vmap", {"shape": [2, 3]}, "vmap"),
]


@pytest.mark.parametrize("desc,where", [c[1:] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
def test_dispatch_keys(probe, ex, desc, where):
    obs = probe("dispatch_keys", desc, where, hint="dispatch_keys(t) 出错")
    label = f"张量 {desc}" + ("（在 torch.func.vmap 里）" if where == "vmap" else "")
    ex.check_keys(obs, desc, where, label)


# ---------------------------------------------------------------- scaled_dot: registration

def test_scaled_dot_schema(probe, ex):
    obs = probe("op_schema", hint="读取 ex105::scaled_dot 的 schema 时出错")
    assert obs["schema"] is not None, "没有找到 torch.ops.ex105.scaled_dot：custom_op 的名字应为 \"ex105::scaled_dot\""
    assert obs["schema"] == ex.EXPECTED_SCHEMA, f"schema 应为 {ex.EXPECTED_SCHEMA}，实际是 {obs['schema']}"


def test_autocast_rule_is_registered_at_autocast_cpu(probe):
    obs = probe("op_schema", hint="读取 ex105::scaled_dot 的注册信息时出错")
    assert obs["schema"] is not None, "没有找到 torch.ops.ex105.scaled_dot"
    assert obs["autocast_cpu_kernel"], (
        "scaled_dot 在 AutocastCPU 这个分发键上没有 kernel：autocast 规则要注册在 dispatcher 里"
        "（torch.library.register_autocast(..., \"cpu\", torch.bfloat16)），而不是在实现里自己判断")


# ---------------------------------------------------------------- scaled_dot: values

EAGER_CASES = [
    # id, seed, shape, dtype, scale, magnitude of a
    ("float32-3d", 11, (2, 3, 16), F32, 0.125, 1.0),
    ("float32-vector-to-scalar", 12, (33,), F32, 1.0, 1.0),
    ("float32-negative-scale", 13, (5, 7), F32, -3.0, 1.0),
    ("float32-large-values", 14, (4, 128), F32, 1e-3, 100.0),
    ("float64", 15, (3, 4, 9), F64, 0.7, 1.0),
    ("bfloat16-inputs", 16, (6, 32), BF16, 0.5, 1.0),
    ("float32-one-element-rows", 17, (5, 1), F32, 2.0, 1.0),
]


@pytest.mark.parametrize("seed,shape,dtype,scale,mag", [c[1:] for c in EAGER_CASES], ids=[c[0] for c in EAGER_CASES])
def test_scaled_dot_eager(probe, ex, check_values, seed, shape, dtype, scale, mag):
    a, b = ex.make_pair(seed, shape, dtype, mag)
    obs = probe("scaled_dot", a, b, scale, hint=f"调用 scaled_dot(a, b, {scale}) 出错")
    check_values(obs, a, b, scale, dtype, f"{str(dtype).removeprefix('torch.')} 输入 {list(shape)}、不开 autocast")


AUTOCAST_CASES = [
    # id, seed, shape, input dtype, scale, magnitude of a, expected output dtype
    ("float32-2d", 21, (3, 64), F32, 0.5, 1.0, BF16),
    ("float32-4d", 22, (2, 2, 3, 48), F32, 1.0 / 48 ** 0.5, 1.0, BF16),
    ("float32-long-rows", 23, (4, 256), F32, 1.0, 1.0, BF16),
    ("float32-large-values", 24, (3, 32), F32, 0.01, 30.0, BF16),
    ("bfloat16-inputs", 25, (3, 40), BF16, 2.0, 1.0, BF16),
    ("float16-inputs", 26, (3, 40), F16, 1.0, 1.0, BF16),
    ("float64-left-alone", 27, (3, 40), F64, 1.0, 1.0, F64),
]


@pytest.mark.parametrize("seed,shape,dtype,scale,mag,out_dtype", [c[1:] for c in AUTOCAST_CASES],
                         ids=[c[0] for c in AUTOCAST_CASES])
def test_scaled_dot_under_autocast(probe, ex, check_values, seed, shape, dtype, scale, mag, out_dtype):
    a, b = ex.make_pair(seed, shape, dtype, mag)
    obs = probe("scaled_dot", a, b, scale, autocast=True,
                hint="在 torch.autocast(\"cpu\", dtype=torch.bfloat16) 下调用 scaled_dot 出错")
    label = f"autocast（bf16）下 {str(dtype).removeprefix('torch.')} 输入"
    if obs.get("dtype") != str(out_dtype):
        raise AssertionError(
            f"{label} 得到了 {obs.get('dtype')} 的输出，应为 {out_dtype}"
            + ("（autocast 规则把 float64 以外的浮点输入转成 bfloat16）" if out_dtype == BF16
               else "（autocast 不转换 float64 输入）"))
    check_values(obs, a, b, scale, out_dtype, label)


def test_autocast_does_not_leak_outside_the_region(probe, ex, check_values):
    a, b = ex.make_pair(31, (4, 24))
    probe("scaled_dot", a, b, 1.0, autocast=True, hint="在 autocast 下调用 scaled_dot 出错")
    obs = probe("scaled_dot", a, b, 1.0, hint="离开 autocast 后调用 scaled_dot 出错")
    check_values(obs, a, b, 1.0, F32, "离开 autocast 区域后、float32 输入")


# ---------------------------------------------------------------- scaled_dot: meta, fake, opcheck, compile

META_CASES = [([5, 12], F32), ([2, 3, 4, 8], BF16), ([7], F64), ([3, 1], F32)]


@pytest.mark.parametrize("shape,dtype", META_CASES, ids=[f"{'x'.join(map(str, s))}-{str(d).removeprefix('torch.')}"
                                                         for s, d in META_CASES])
def test_scaled_dot_on_meta_tensors(probe, shape, dtype):
    obs = probe("scaled_dot_meta", shape, dtype, 0.5,
                hint="在 meta 设备上调用 scaled_dot 出错（缺少 fake 实现，或 fake 实现读了数据？）")
    assert obs["is_tensor"], "meta 设备上 scaled_dot 应返回一个张量"
    assert obs["device"] == "meta", f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备"
    assert obs["shape"] == shape[:-1], f"meta 设备上输入 {shape} 的输出形状是 {obs['shape']}，应为 {shape[:-1]}"
    assert obs["dtype"] == str(dtype), f"meta 设备上输出 dtype 是 {obs['dtype']}，应为 {dtype}"


@pytest.mark.parametrize("autocast,want", [(False, F32), (True, BF16)], ids=["plain", "under-autocast"])
def test_scaled_dot_on_fake_tensors(probe, ex, autocast, want):
    a, b = ex.make_pair(41, (3, 5, 16))
    obs = probe("scaled_dot_fake", a, b, 1.0, autocast=autocast, hint="用 FakeTensorMode 调用 scaled_dot 出错")
    where = "autocast（bf16）下的 fake tensor" if autocast else "fake tensor"
    assert obs["is_tensor"], f"{where}：scaled_dot 应返回一个张量"
    assert obs["shape"] == [3, 5], f"{where}：输出形状是 {obs['shape']}，应为 [3, 5]"
    assert obs["dtype"] == str(want), (
        f"{where}：输出 dtype 是 {obs['dtype']}，应为 {want}"
        + ("（torch.compile 追踪时只看得到 fake 实现：转换精度要由 AutocastCPU 层的规则完成）" if autocast else ""))


@pytest.mark.parametrize("dtype", [F32, F64, BF16], ids=["float32", "float64", "bfloat16"])
def test_scaled_dot_opcheck(probe, ex, dtype):
    a, b = ex.make_pair(51, (2, 3, 8), dtype)
    result = probe("scaled_dot_opcheck", a, b, 0.5, hint="opcheck(scaled_dot) 出错")
    ex.check_opcheck(result, f"opcheck(scaled_dot)，{str(dtype).removeprefix('torch.')} 输入")


def test_scaled_dot_compiled_under_autocast(probe, ex, check_values):
    a, b = ex.make_pair(61, (4, 32))
    obs = probe("scaled_dot_compiled_autocast", a, b, 0.5,
                hint="torch.compile(fullgraph=True, backend=\"aot_eager\") 在 autocast 下编译调用 scaled_dot 的函数时出错")
    assert obs["is_tensor"], "torch.compile 下 scaled_dot 应返回一个张量"
    assert obs["dtype"] == str(BF16), f"torch.compile + autocast（bf16）下输出 dtype 是 {obs['dtype']}，应为 torch.bfloat16"
    check_values(obs, a, b, 0.5, BF16, "torch.compile + autocast（bf16）下")
