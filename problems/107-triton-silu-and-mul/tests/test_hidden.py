"""Exercise 107, hidden tests: more dtypes, ranks and sizes than the public ones; same lessons.

On the CPU tier sizes are small (Triton's interpreter runs one program after another in Python), and
every load and store of the kernels is checked there (probes.py); tails are checked through the out
variant too, inside guarded buffers (see conftest.py). The GPU tier uses larger sizes.
"""

import pytest
import torch

from judge.report.feedback import msg

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16

EAGER_HINT = msg("调用 silu_and_mul 时出错", "calling silu_and_mul failed")
OUT_HINT = msg("调用 silu_and_mul_out 时出错", "calling silu_and_mul_out failed")
META_HINT = msg(
    "在 meta / fake 张量上调用 silu_and_mul 出错：需要不读数据、不启动 kernel 的 fake 实现",
    "calling silu_and_mul on a meta / fake tensor failed: it needs a fake that reads no data and launches no kernel",
)


@pytest.mark.hint("两个算子都以 ex107:: 注册", "both operators are registered under ex107::")
@pytest.mark.parametrize("name", ["silu_and_mul", "silu_and_mul_out"])
def test_op_registered(probe, name):
    assert probe("op_exists", name, hint=msg("查找算子时出错", "looking up the operator failed")), msg(
        f"没有找到 torch.ops.ex107.{name}", f"torch.ops.ex107.{name} not found"
    )


OUT_CASES = [
    ((7, 2), F32),
    ((131 * 2,), F16),
    ((3, 5, 22), BF16),
    ((5, 130), F32),
    ((1, 2), BF16),
    ((2, 3, 66), F16),
]


@pytest.mark.hint(
    "out 变体：只写 out 的每个元素，一个也不多（各种 dtype 与尾块）",
    "out variant: writes every element of out and nothing else (several dtypes and tails)",
)
@pytest.mark.parametrize(
    "shape,dtype",
    OUT_CASES,
    ids=["float32-d1", "float16-1d", "bfloat16-3d", "float32-odd-rows", "bfloat16-single", "float16-3d"],
)
def test_out_variant_writes_exactly_out(probe, guarded, check_guarded, shape, dtype):
    args, x, xbuf, obuf = guarded(201, shape, dtype)
    check_guarded(probe("out_variant", *args, hint=OUT_HINT), x, xbuf, obuf, "silu_and_mul_out", "silu_and_mul_out")


EAGER_CASES = [((128,), F32), ((8, 32), F16), ((2, 2, 2, 32), BF16), ((2, 4, 34), F32)]


@pytest.mark.hint(
    "functional 算子的数值：float32 / float16 / bfloat16，一到四维",
    "the functional operator's values: float32 / float16 / bfloat16, 1-D to 4-D",
)
@pytest.mark.parametrize("shape,dtype", EAGER_CASES, ids=["float32-1d", "float16-2d", "bfloat16-4d", "float32-3d"])
def test_eager_matches_formula(probe, make_input, check_out, shape, dtype):
    x = make_input(101, shape, dtype)
    check_out(probe("eager", x, hint=EAGER_HINT), x, "silu_and_mul", "silu_and_mul")


@pytest.mark.hint("meta 张量上的形状、dtype 与设备", "shape, dtype and device on meta tensors")
@pytest.mark.parametrize("shape,dtype", [([6], F16), ([2, 3, 4, 10], F32)], ids=["float16-1d", "float32-4d"])
@pytest.mark.weight(2)
def test_on_meta_tensors(probe, check_meta, shape, dtype):
    check_meta(probe("meta", shape, dtype, hint=META_HINT), shape, dtype, "meta", "meta 张量上", "on a meta tensor")


@pytest.mark.hint("FakeTensorMode 下的形状、dtype 与设备", "shape, dtype and device under FakeTensorMode")
@pytest.mark.weight(4)
def test_under_fake_tensor_mode(probe, make_input, check_meta):
    x = make_input(301, (3, 10), BF16)
    env = probe("environment", hint=msg("读取运行环境出错", "reading the worker's environment failed"))
    obs = probe("fake", x, hint=META_HINT)
    check_meta(
        obs,
        [3, 10],
        BF16,
        env["device"] if env["device"] == "cpu" else "cuda:0",
        "FakeTensorMode 下",
        "under FakeTensorMode",
    )


@pytest.mark.hint("schema 与本题给出的一致", "schemas as the statement gives them")
@pytest.mark.weight(6)
def test_schemas(probe, check_schema):
    check_schema(
        probe("schema", "silu_and_mul", hint=msg("读取 schema 时出错", "reading the schema failed")),
        "silu_and_mul",
        "ex107::silu_and_mul(Tensor x) -> Tensor",
        [("x", "Tensor", False)],
        [("Tensor", False)],
    )
    check_schema(
        probe("schema", "silu_and_mul_out", hint=msg("读取 schema 时出错", "reading the schema failed")),
        "silu_and_mul_out",
        "ex107::silu_and_mul_out(Tensor x, Tensor(a1!) out) -> ()",
        [("x", "Tensor", False), ("out", "Tensor", True)],
        [],
    )


# ---------------------------------------------------------------- GPU tier


@pytest.mark.gpu
@pytest.mark.hint(
    "CUDA：float16 / bfloat16 的数值与 out 变体的边界", "CUDA: float16 / bfloat16 values and the out variant's bounds"
)
@pytest.mark.parametrize("dtype", [F16, BF16], ids=["float16", "bfloat16"])
def test_cuda_values_and_out_variant(probe, on_cuda, make_input, check_out, guarded, check_guarded, dtype):
    x = make_input(401, (2, 4, 2048), dtype)
    check_out(probe("eager", x, hint=EAGER_HINT), x, "CUDA 上", "on CUDA")
    for i, shape in enumerate([(33, 130), (4099 * 2,)]):
        args, x, xbuf, obuf = guarded(402 + i, shape, dtype)
        check_guarded(
            probe("out_variant", *args, hint=OUT_HINT),
            x,
            xbuf,
            obuf,
            "CUDA 上的 silu_and_mul_out",
            "silu_and_mul_out on CUDA",
        )


def tiers(zh, en):
    """The CPU and the GPU (CUDA) case of one check, each with its own hint."""
    return [
        pytest.param("cpu", id="cpu", marks=pytest.mark.hint(zh, en)),
        pytest.param("cuda", id="cuda", marks=[pytest.mark.gpu, pytest.mark.hint(f"CUDA：{zh}", f"CUDA: {en}")]),
    ]


def _on(tier, request):
    if tier == "cuda":
        request.getfixturevalue("on_cuda")


@pytest.mark.parametrize(
    "tier",
    tiers(
        "torch.compile 中分配 out 并调用 out 变体（bfloat16）",
        "torch.compile of a block that allocates out and calls the out variant (bfloat16)",
    ),
)
@pytest.mark.weight(10)
def test_compile_out_variant(probe, make_input, check_out, check_accesses, request, tier):
    _on(tier, request)
    shapes = [(4, 64), (8, 16)] if tier == "cpu" else [(4, 2048), (16, 512)]
    xs = [make_input(501 + i, shape, BF16) for i, shape in enumerate(shapes)]
    obs = probe(
        "compiled",
        xs,
        True,
        hint=msg("torch.compile 下调用 silu_and_mul_out 出错", "calling silu_and_mul_out under torch.compile failed"),
    )
    check_accesses(obs, "torch.compile 下", "under torch.compile")
    for x, out in zip(xs, obs["outs"]):
        check_out(
            {"out": out, "type": "Tensor", "x_changed": False, "shares_input_memory": False, "contiguous": True},
            x,
            "torch.compile 下",
            "under torch.compile",
        )


@pytest.mark.parametrize("tier", tiers("两个算子的 opcheck（bfloat16）", "opcheck of both operators (bfloat16)"))
@pytest.mark.weight(8)
def test_opcheck_bfloat16(probe, make_input, check_opcheck, request, tier):
    _on(tier, request)
    x = make_input(601, (2, 2, 16) if tier == "cpu" else (2, 4, 1024), BF16)
    for name, args in [
        ("silu_and_mul", (x,)),
        ("silu_and_mul_out", (x, torch.empty(*x.shape[:-1], x.shape[-1] // 2, dtype=BF16))),
    ]:
        check_opcheck(probe("run_opcheck", name, args, hint=msg("opcheck 出错", "opcheck failed")), name, args)
