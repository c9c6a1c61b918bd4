"""Exercise 107, public tests (what "Run" runs).

CPU tier (everywhere, Triton's interpreter): values, the out variant inside guarded buffers, meta
tensors, schemas. GPU tier (@pytest.mark.gpu: a CUDA GPU): the same kernels compiled, torch.compile,
opcheck. See probes.py for how each check calls your operators.
"""

import pytest
import torch

from judge.feedback import msg

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16

EAGER_HINT = msg("调用 silu_and_mul 时出错", "calling silu_and_mul failed")
OUT_HINT = msg("调用 silu_and_mul_out 时出错", "calling silu_and_mul_out failed")
META_HINT = msg(
    "在 meta 张量上调用 silu_and_mul 出错：需要 register_fake 注册 fake 实现，且它不能读数据或启动 kernel",
    "calling silu_and_mul on a meta tensor failed: it needs a fake (register_fake) that reads no data "
    "and launches no kernel",
)
SCHEMAS = {
    "silu_and_mul": ("ex107::silu_and_mul(Tensor x) -> Tensor", [("x", "Tensor", False)], [("Tensor", False)]),
    "silu_and_mul_out": (
        "ex107::silu_and_mul_out(Tensor x, Tensor(a1!) out) -> ()",
        [("x", "Tensor", False), ("out", "Tensor", True)],
        [],
    ),
}


def test_triton_is_installed(probe):
    env = probe("environment", hint=msg("读取运行环境出错", "reading the worker's environment failed"))
    assert env["triton"], msg(
        "判题进程里没有 Triton：pip install -e '.[triton]'",
        "Triton is not installed where the judge runs: pip install -e '.[triton]'",
    )


@pytest.mark.parametrize("name", list(SCHEMAS), ids=list(SCHEMAS))
def test_schema(probe, check_schema, name):
    text, args, returns = SCHEMAS[name]
    check_schema(
        probe("schema", name, hint=msg("读取 schema 时出错", "reading the schema failed")), name, text, args, returns
    )


@pytest.mark.parametrize("shape,dtype", [((4, 2048), F32), ((2, 8, 512), BF16)], ids=["float32-2d", "bfloat16-3d"])
def test_eager_matches_formula(probe, make_input, check_out, shape, dtype):
    x = make_input(1, shape, dtype)
    check_out(probe("eager", x, hint=EAGER_HINT), x, "silu_and_mul", "silu_and_mul")


@pytest.mark.parametrize("shape", [(5, 14), (3, 2000)], ids=["one-partial-block", "several-blocks-and-a-tail"])
def test_out_variant_writes_exactly_out(probe, guarded, check_guarded, shape):
    args, x, xbuf, obuf = guarded(2, shape, F32)
    obs = probe("out_variant", *args, hint=OUT_HINT)
    check_guarded(
        obs, x, xbuf, obuf, f"silu_and_mul_out（x 形状 {list(shape)}）", f"silu_and_mul_out (x of shape {list(shape)})"
    )


def test_on_meta_tensors(probe, check_meta):
    shape = [2, 5, 64]
    check_meta(probe("meta", shape, BF16, hint=META_HINT), shape, BF16, "meta", "meta 张量上", "on a meta tensor")


# ---------------------------------------------------------------- torch.compile and opcheck, on both tiers

TIERS = [pytest.param("cpu", id="cpu"), pytest.param("cuda", id="cuda", marks=pytest.mark.gpu)]


def _on(tier, request):
    """GPU-tier cases first make sure the worker's kernels run compiled on CUDA."""
    if tier == "cuda":
        request.getfixturevalue("on_cuda")


@pytest.mark.parametrize("tier", TIERS)
def test_compile_fullgraph_dynamic_shapes(probe, make_input, check_out, request, tier):
    _on(tier, request)
    xs = [make_input(13 + i, shape, F32) for i, shape in enumerate([(4, 2048), (8, 1024), (2, 4096)])]
    obs = probe(
        "compiled",
        xs,
        False,
        hint=msg(
            'torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) 下调用 silu_and_mul 出错（需要 fake 实现）',
            'calling silu_and_mul under torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) failed (it needs a fake)',
        ),
    )
    for x, out in zip(xs, obs["outs"]):
        check_out(
            {"out": out, "type": "Tensor", "x_changed": False, "shares_input_memory": False, "contiguous": True},
            x,
            "torch.compile 下",
            "under torch.compile",
        )
    assert obs["graphs"] == 1, msg(
        f"三种二维形状编译了 {obs['graphs']} 次（应为 1 次）：fake 实现不要把符号大小变成 int",
        f"three 2-D shapes compiled {obs['graphs']} times (want once): the fake must not turn symbolic sizes into ints",
    )


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("name", ["silu_and_mul", "silu_and_mul_out"])
def test_opcheck(probe, make_input, check_opcheck, request, tier, name):
    _on(tier, request)
    x = make_input(14, (4, 2048), F32)
    args = (x,) if name == "silu_and_mul" else (x, torch.empty(4, 1024))
    check_opcheck(probe("run_opcheck", name, args, hint=msg("opcheck 出错", "opcheck failed")), name)


# ---------------------------------------------------------------- GPU tier only


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
def test_cuda_values_and_out_variant(probe, on_cuda, make_input, check_out, guarded, check_guarded, dtype):
    x = make_input(11, (4, 2048), dtype)
    check_out(probe("eager", x, hint=EAGER_HINT), x, "CUDA 上", "on CUDA")
    args, x, xbuf, obuf = guarded(12, (3, 2000), dtype)
    check_guarded(
        probe("out_variant", *args, hint=OUT_HINT),
        x,
        xbuf,
        obuf,
        "CUDA 上的 silu_and_mul_out",
        "silu_and_mul_out on CUDA",
    )
