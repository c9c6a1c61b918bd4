"""Exercise 105, hidden tests: more tensors for dispatch_keys (dtypes, views, layouts, fake
tensors, functorch transforms) and scaled_dot in more shapes, dtypes and settings.

Each case declares what it checks with @pytest.mark.hint: that, not its inputs, is what a learner sees.
"""

import pytest
import torch

F16, F32, F64, BF16 = torch.float16, torch.float32, torch.float64, torch.bfloat16

KEY_CASES = [
    # id, description, where, what it is (zh, en)
    (
        "chapter-cpu-float32",
        {"shape": [3]},
        "plain",
        "本章的例子 torch.randn(3)",
        "the chapter's example, torch.randn(3)",
    ),
    ("float64", {"dtype": "float64"}, "plain", "float64 张量", "a float64 tensor"),
    ("int64", {"dtype": "int64"}, "plain", "int64 张量", "an int64 tensor"),
    ("bool", {"dtype": "bool"}, "plain", "bool 张量", "a bool tensor"),
    ("bfloat16", {"dtype": "bfloat16"}, "plain", "bfloat16 张量", "a bfloat16 tensor"),
    ("requires-grad", {"requires_grad": True}, "plain", "requires_grad=True 的张量", "a tensor that requires grad"),
    ("parameter", {"kind": "parameter"}, "plain", "nn.Parameter", "an nn.Parameter"),
    ("transpose-view", {"shape": [3, 4], "view": "transpose"}, "plain", "转置视图", "a transposed view"),
    ("slice-view", {"shape": [3, 4], "view": "slice"}, "plain", "切片视图", "a sliced view"),
    ("expand-view", {"shape": [3], "view": "expand"}, "plain", "expand 视图", "an expanded view"),
    (
        "detached-from-grad",
        {"requires_grad": True, "view": "detach"},
        "plain",
        "从需要梯度的张量 detach 出的张量",
        "a tensor detached from one that requires grad",
    ),
    ("meta", {"device": "meta"}, "plain", "meta 设备上的张量", "a tensor on the meta device"),
    (
        "meta-requires-grad",
        {"device": "meta", "requires_grad": True},
        "plain",
        "需要梯度的 meta 张量",
        "a meta tensor that requires grad",
    ),
    (
        "meta-inference",
        {"device": "meta", "inference": True},
        "plain",
        "inference_mode 里创建的 meta 张量",
        "a meta tensor created in inference_mode",
    ),
    ("inference", {"inference": True}, "plain", "inference_mode 里创建的张量", "a tensor created in inference_mode"),
    (
        "inference-slice-view",
        {"shape": [3, 4], "inference": True, "view": "slice"},
        "plain",
        "inference_mode 里创建的张量的切片视图",
        "a sliced view of a tensor created in inference_mode",
    ),
    ("conj-view", {"dtype": "complex64", "view": "conj"}, "plain", "共轭视图", "a conjugate view"),
    (
        "conj-view-requires-grad",
        {"dtype": "complex64", "view": "conj", "requires_grad": True},
        "plain",
        "需要梯度的共轭视图",
        "a conjugate view that requires grad",
    ),
    ("neg-view", {"view": "neg"}, "plain", "取负视图", "a negative view"),
    ("sparse-coo", {"shape": [3, 3], "kind": "sparse_coo"}, "plain", "稀疏 COO 张量", "a sparse COO tensor"),
    ("sparse-csr", {"shape": [3, 3], "kind": "sparse_csr"}, "plain", "稀疏 CSR 张量", "a sparse CSR tensor"),
    ("zero-tensor", {"kind": "zero"}, "plain", "ZeroTensor", "a ZeroTensor"),
    (
        "zero-tensor-inference",
        {"kind": "zero", "inference": True},
        "plain",
        "inference_mode 里创建的 ZeroTensor",
        "a ZeroTensor created in inference_mode",
    ),
    ("nested", {"kind": "nested"}, "plain", "nested tensor", "a nested tensor"),
    (
        "tensor-subclass",
        {"kind": "subclass"},
        "plain",
        "带 __torch_dispatch__ 的张量子类",
        "a tensor subclass with __torch_dispatch__",
    ),
    (
        "tensor-subclass-on-meta",
        {"kind": "subclass", "device": "meta"},
        "plain",
        "meta 设备上的张量子类",
        "a tensor subclass on the meta device",
    ),
    (
        "inside-vmap",
        {"shape": [2, 3]},
        "vmap",
        "torch.func.vmap 里看到的张量",
        "the tensor seen inside torch.func.vmap",
    ),
]


@pytest.mark.parametrize(
    "desc,where",
    [
        pytest.param(desc, where, id=case_id, marks=pytest.mark.hint(f"dispatch_keys：{zh}", f"dispatch_keys: {en}"))
        for case_id, desc, where, zh, en in KEY_CASES
    ],
)
@pytest.mark.weight(3)
def test_dispatch_keys(probe, ex, desc, where):
    obs = probe("dispatch_keys", desc, where, hint=ex.hints["dispatch_keys"])
    ex.check_keys(obs, desc, where, ex.tensor_label(desc, where))


# ---------------------------------------------------------------- scaled_dot: registration


@pytest.mark.hint(
    "schema：ex105::scaled_dot(Tensor a, Tensor b, float scale) -> Tensor",
    "schema: ex105::scaled_dot(Tensor a, Tensor b, float scale) -> Tensor",
)
def test_scaled_dot_schema(probe, ex):
    ex.check_schema(probe("op_schema", hint=ex.hints["op_schema"]))


@pytest.mark.hint(
    "autocast：规则注册在 AutocastCPU 分发键上", "autocast: the rule is registered at the AutocastCPU key"
)
@pytest.mark.weight(5)
def test_autocast_rule_is_registered_at_autocast_cpu(probe, ex):
    ex.check_autocast_kernel(probe("op_schema", hint=ex.hints["op_schema"]))


# ---------------------------------------------------------------- scaled_dot: values

EAGER_CASES = [
    # id, seed, shape, dtype, scale, magnitude of a, what it is (zh, en)
    ("float32-3d", 11, (2, 3, 16), F32, 0.125, 1.0, "三维 float32 输入", "3-D float32 inputs"),
    ("float32-vector-to-scalar", 12, (33,), F32, 1.0, 1.0, "一维输入，输出是 0 维", "1-D inputs, a 0-D output"),
    ("float32-negative-scale", 13, (5, 7), F32, -3.0, 1.0, "负的 scale", "a negative scale"),
    (
        "float32-large-values",
        14,
        (4, 128),
        F32,
        1e-3,
        100.0,
        "数值较大的 float32 输入",
        "float32 inputs with large values",
    ),
    (
        "float64",
        15,
        (3, 4, 9),
        F64,
        0.7,
        1.0,
        "float64 输入按 float64 精度计算",
        "float64 inputs, at float64 precision",
    ),
    ("bfloat16-inputs", 16, (6, 32), BF16, 0.5, 1.0, "bfloat16 输入", "bfloat16 inputs"),
    ("float32-one-element-rows", 17, (5, 1), F32, 2.0, 1.0, "最后一维为 1", "a last dimension of 1"),
]


@pytest.mark.parametrize(
    "seed,shape,dtype,scale,mag",
    [
        pytest.param(*values, id=case_id, marks=pytest.mark.hint(f"eager：{zh}", f"eager: {en}"))
        for case_id, *values, zh, en in EAGER_CASES
    ],
)
def test_scaled_dot_eager(probe, ex, check_values, seed, shape, dtype, scale, mag):
    a, b = ex.make_pair(seed, shape, dtype, mag)
    obs = probe("scaled_dot", a, b, scale, hint=ex.hints["scaled_dot"])
    name = str(dtype).removeprefix("torch.")
    check_values(
        obs,
        a,
        b,
        scale,
        dtype,
        (f"{name} 输入 {list(shape)}、不开 autocast", f"{name} inputs {list(shape)}, outside autocast"),
    )


AUTOCAST_CASES = [
    # id, seed, shape, input dtype, scale, magnitude of a, expected output dtype, what it is (zh, en)
    ("float32-2d", 21, (3, 64), F32, 0.5, 1.0, BF16, "float32 输入转成 bfloat16", "float32 inputs cast to bfloat16"),
    ("float32-4d", 22, (2, 2, 3, 48), F32, 1.0 / 48**0.5, 1.0, BF16, "四维 float32 输入", "4-D float32 inputs"),
    ("float32-long-rows", 23, (4, 256), F32, 1.0, 1.0, BF16, "很长的行", "long rows"),
    ("float32-large-values", 24, (3, 32), F32, 0.01, 30.0, BF16, "数值较大的输入", "inputs with large values"),
    ("bfloat16-inputs", 25, (3, 40), BF16, 2.0, 1.0, BF16, "bfloat16 输入", "bfloat16 inputs"),
    (
        "float16-inputs",
        26,
        (3, 40),
        F16,
        1.0,
        1.0,
        BF16,
        "float16 输入也转成 bfloat16",
        "float16 inputs are cast to bfloat16 too",
    ),
    ("float64-left-alone", 27, (3, 40), F64, 1.0, 1.0, F64, "float64 输入不转换", "float64 inputs are not cast"),
]


@pytest.mark.parametrize(
    "seed,shape,dtype,scale,mag,out_dtype",
    [
        pytest.param(*values, id=case_id, marks=pytest.mark.hint(f"autocast：{zh}", f"autocast: {en}"))
        for case_id, *values, zh, en in AUTOCAST_CASES
    ],
)
def test_scaled_dot_under_autocast(probe, ex, check_values, seed, shape, dtype, scale, mag, out_dtype):
    a, b = ex.make_pair(seed, shape, dtype, mag)
    obs = probe("scaled_dot", a, b, scale, autocast=True, hint=ex.hints["autocast"])
    name = str(dtype).removeprefix("torch.")
    label = (f"autocast（bf16）下 {name} 输入", f"{name} inputs under autocast (bf16)")
    ex.check_autocast_dtype(obs, label, dtype, out_dtype)
    check_values(obs, a, b, scale, out_dtype, label)


@pytest.mark.hint(
    "autocast：离开 autocast 区域后恢复原来的 dtype", "autocast: the inputs' dtype again after leaving the region"
)
def test_autocast_does_not_leak_outside_the_region(probe, ex, check_values):
    a, b = ex.make_pair(31, (4, 24))
    probe("scaled_dot", a, b, 1.0, autocast=True, hint=ex.hints["autocast"])
    obs = probe("scaled_dot", a, b, 1.0, hint=ex.hints["scaled_dot"])
    check_values(obs, a, b, 1.0, F32, ("离开 autocast 区域后、float32 输入", "float32 inputs after leaving autocast"))


# ---------------------------------------------------------------- scaled_dot: meta, fake, opcheck, compile

META_CASES = [
    ([5, 12], F32, "二维 float32 输入", "2-D float32 inputs"),
    ([2, 3, 4, 8], BF16, "四维 bfloat16 输入", "4-D bfloat16 inputs"),
    ([7], F64, "一维 float64 输入，输出是 0 维", "1-D float64 inputs, a 0-D output"),
    ([3, 1], F32, "最后一维为 1", "a last dimension of 1"),
]


@pytest.mark.parametrize(
    "shape,dtype",
    [
        pytest.param(
            shape,
            dtype,
            id=f"{'x'.join(map(str, shape))}-{str(dtype).removeprefix('torch.')}",
            marks=pytest.mark.hint(f"meta：{zh}", f"meta: {en}"),
        )
        for shape, dtype, zh, en in META_CASES
    ],
)
def test_scaled_dot_on_meta_tensors(probe, ex, shape, dtype):
    ex.check_meta(probe("scaled_dot_meta", shape, dtype, 0.5, hint=ex.hints["meta"]), shape, dtype)


@pytest.mark.parametrize(
    "autocast,want",
    [
        pytest.param(
            False,
            F32,
            id="plain",
            marks=pytest.mark.hint(
                "fake：FakeTensorMode 下的形状与 dtype", "fake: shape and dtype under FakeTensorMode"
            ),
        ),
        pytest.param(
            True,
            BF16,
            id="under-autocast",
            marks=pytest.mark.hint(
                "fake：autocast 下 fake tensor 输出 bfloat16", "fake: a fake tensor under autocast gives bfloat16"
            ),
        ),
    ],
)
@pytest.mark.weight(19)
def test_scaled_dot_on_fake_tensors(probe, ex, autocast, want):
    a, b = ex.make_pair(41, (3, 5, 16))
    obs = probe("scaled_dot_fake", a, b, 1.0, autocast=autocast, hint=ex.hints["fake"])
    ex.check_fake(obs, [3, 5], want, autocast)


@pytest.mark.parametrize(
    "dtype",
    [
        pytest.param(F32, id="float32", marks=pytest.mark.hint("opcheck：float32 输入", "opcheck on float32 inputs")),
        pytest.param(F64, id="float64", marks=pytest.mark.hint("opcheck：float64 输入", "opcheck on float64 inputs")),
        pytest.param(
            BF16, id="bfloat16", marks=pytest.mark.hint("opcheck：bfloat16 输入", "opcheck on bfloat16 inputs")
        ),
    ],
)
def test_scaled_dot_opcheck(probe, ex, dtype):
    a, b = ex.make_pair(51, (2, 3, 8), dtype)
    result = probe("scaled_dot_opcheck", a, b, 0.5, hint=ex.hints["opcheck"])
    name = str(dtype).removeprefix("torch.")
    ex.check_opcheck(
        result, (f"opcheck(scaled_dot)，{name} 输入", f"opcheck(scaled_dot) on {name} inputs"), (a, b, 0.5)
    )


@pytest.mark.hint(
    "torch.compile + autocast：输出 bfloat16，数值正确",
    "torch.compile under autocast: a bfloat16 output with the right values",
)
@pytest.mark.weight(19)
def test_scaled_dot_compiled_under_autocast(probe, ex, check_values):
    a, b = ex.make_pair(61, (4, 32))
    obs = probe("scaled_dot_compiled_autocast", a, b, 0.5, hint=ex.hints["compiled"])
    ex.check_compiled(obs, a, b, 0.5, check_values)
