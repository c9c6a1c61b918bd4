"""Exercise 100, hidden tests: the public lessons on more shapes, dtypes and values.

Everything goes through torch.ops.ex100.* inside the worker (see probes.py); every expected
value is computed here from the inputs. Inputs come from fixed seeds.
"""

import math

import pytest
import torch

from judge.report.feedback import guessing, msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16
KV_ARGS = ["k_cache", "v_cache", "slots", "k", "v"]
MUTATED = {"k_cache", "v_cache"}
EAGER_KV = ("eager 调用 kv_write 后", "after an eager call of kv_write")
EAGER_RMS = ("eager 调用 rms_norm", "eager call of rms_norm")
COMPILED = ('torch.compile(backend="aot_eager") 下', 'under torch.compile(backend="aot_eager")')
BACKWARD_HINT = msg(
    "对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值，eps 为 None）",
    "the backward of rms_norm failed (it must return one value per input x, weight, eps; None for eps)",
)


def _returned(zh, en):
    return msg(f"kv_write 应返回 None，{zh}", f"kv_write must return None; {en}")


# ================================================================ registration and schema


@pytest.mark.hint("注册：算子名在 ex100 命名空间下", "registration: the operators live in the ex100 namespace")
@pytest.mark.parametrize("name", ["kv_write", "rms_norm"])
def test_op_registered_under_ex100(probe, name):
    found = probe("op_exists", name, hint=msg("查找算子时出错", "looking up the operator failed"))
    assert found, msg(
        f'没有找到 torch.ops.ex100.{name}：custom_op 的名字应为 "ex100::{name}"',
        f'torch.ops.ex100.{name} does not exist: the custom_op name must be "ex100::{name}"',
    )


@pytest.fixture(scope="module")
def schemas(probe):
    """Both schemas, read once (None for an operator that is not registered)."""
    return {
        name: probe("schema", name, hint=msg(f"读取 {name} 的 schema 时出错", f"reading the schema of {name} failed"))
        for name in ("kv_write", "rms_norm")
    }


def _schema(schemas, name):
    s = schemas[name]
    assert s is not None, msg(f"没有找到 torch.ops.ex100.{name}", f"torch.ops.ex100.{name} does not exist")
    return s


@pytest.mark.hint("schema：kv_write 的参数名、类型与返回值", "schema: kv_write's argument names, types and return")
def test_kv_write_schema_arguments_and_returns(schemas):
    kv_schema = _schema(schemas, "kv_write")
    names = [a["name"] for a in kv_schema["arguments"]]
    assert names == KV_ARGS, msg(
        f"kv_write 的参数应为 {KV_ARGS}，schema 里是 {names}",
        f"the arguments of kv_write must be {KV_ARGS}; the schema has {names}",
    )
    for a in kv_schema["arguments"]:
        assert a["type"] == "Tensor", msg(
            f"kv_write 的参数 {a['name']} 应是 Tensor，schema 里是 {a['type']}",
            f"argument {a['name']} of kv_write must be a Tensor; the schema has {a['type']}",
        )
    assert kv_schema["returns"] == [], msg(
        f"kv_write 应该什么都不返回（-> None，schema 为 -> ()）：{kv_schema['text']}",
        f"kv_write must return nothing (-> None, in the schema -> ()): {kv_schema['text']}",
    )


@pytest.mark.hint("schema：mutates_args 恰好是两个缓存", "schema: mutates_args is exactly the two caches")
# The two caches carry the lesson (mutates_args names what is written in place); the other arguments only
# catch a schema that declares too much, a smaller mistake.
@pytest.mark.parametrize(
    "arg", [pytest.param(a, marks=pytest.mark.weight(16 if a.endswith("_cache") else 1)) for a in KV_ARGS]
)
def test_kv_write_schema_declares_mutation_of(schemas, arg):
    kv_schema = _schema(schemas, "kv_write")
    info = {a["name"]: a for a in kv_schema["arguments"]}
    assert arg in info, msg(f"kv_write 的 schema 里没有参数 {arg}", f"the schema of kv_write has no argument {arg}")
    if arg in MUTATED:
        assert info[arg]["is_write"], msg(
            f"kv_write 写了 {arg}，但 schema 没有把它声明为被修改（mutates_args 缺少 {arg}）",
            f"kv_write writes {arg}, but the schema does not declare it as mutated (mutates_args lacks {arg})",
        )
    else:
        assert not info[arg]["is_write"], msg(
            f'kv_write 只读 {arg}，schema 却把它声明为被修改（mutates_args 多了 {arg}，或用了 "unknown"）',
            f"kv_write only reads {arg}, yet the schema declares it mutated (mutates_args lists {arg} too, "
            f'or is "unknown")',
        )


@pytest.mark.hint(
    "schema：rms_norm 的参数、eps 的默认值与返回值", "schema: rms_norm's arguments, the default of eps, the return"
)
def test_rms_norm_schema_arguments_and_default_eps(schemas):
    rms_schema = _schema(schemas, "rms_norm")
    args = rms_schema["arguments"]
    got = [(a["name"], a["type"]) for a in args]
    want = [("x", "Tensor"), ("weight", "Tensor"), ("eps", "float")]
    assert got == want, msg(
        f"rms_norm 的参数应为 (Tensor x, Tensor weight, float eps)，schema 是 {rms_schema['text']}",
        f"the arguments of rms_norm must be (Tensor x, Tensor weight, float eps); the schema is {rms_schema['text']}",
    )
    eps = args[2]
    assert eps["has_default"] and eps["default"] is not None and math.isclose(eps["default"], 1e-6, rel_tol=1e-9), msg(
        "rms_norm 的 eps 默认值应为 1e-6（eps: float = 1e-6）",
        "the default of eps in rms_norm must be 1e-6 (eps: float = 1e-6)",
    )
    returns = rms_schema["returns"]
    assert len(returns) == 1 and returns[0]["type"] == "Tensor", msg(
        f"rms_norm 应返回一个 Tensor，schema 是 {rms_schema['text']}",
        f"rms_norm must return one Tensor; the schema is {rms_schema['text']}",
    )


@pytest.mark.hint(
    "schema：rms_norm 不修改输入、返回新张量", "schema: rms_norm mutates nothing and returns a new tensor"
)
def test_rms_norm_schema_is_functional(schemas):
    rms_schema = _schema(schemas, "rms_norm")
    written = [a["name"] for a in rms_schema["arguments"] if a["is_write"]]
    assert not written, msg(
        f"rms_norm 不修改输入，schema 却声明修改了 {written}（mutates_args 应为空）",
        f"rms_norm modifies no input, yet the schema declares {written} mutated (mutates_args must be empty)",
    )
    assert not any(r["has_alias"] for r in rms_schema["returns"]), msg(
        "rms_norm 的输出应是新张量，schema 却标注它与输入别名",
        "the output of rms_norm must be a new tensor, yet the schema marks it as aliasing an input",
    )


# ================================================================ kv_write

KV_CASES = [
    # seed, n, trailing, num_slots, dtype
    (101, 16, (4,), 5, F32),
    (102, 12, (2, 3), 4, F64),
    (103, 9, (), 3, F32),
    (104, 6, (2, 2), 6, F64),
]
KV_IDS = ["float32-2d", "float64-3d", "float32-1d", "float64-3d-every-slot"]


@pytest.mark.hint(
    "eager：kv_write 原地写入（缓存可以是任意维数，包括 1 维）",
    "eager: kv_write writes in place (caches of any rank, 1-D included)",
)
@pytest.mark.parametrize("case", KV_CASES, ids=KV_IDS)
def test_kv_write_eager_writes_in_place(probe, make_kv, check_kv, case):
    inputs = make_kv(*case)
    obs = probe("kv_write_eager", *inputs, hint=msg("eager 调用 kv_write 时出错", "an eager call of kv_write failed"))
    check_kv(obs, inputs, EAGER_KV)
    _, _, slots, k, v = inputs
    for name, t in (("slots", slots), ("k", k), ("v", v)):
        assert torch.equal(obs[name], t), msg(
            f"kv_write 改动了只读参数 {name}", f"kv_write changed {name}, which it only reads"
        )
    assert obs["returned"] is None, _returned(f"实际返回了 {obs['returned']}", f"it returned {obs['returned']}")


POOL_CASES = [
    # seed, n, trailing, num_slots, dtype, layout (see probes.kv_write_into_pool)
    (108, 10, (4,), 4, F32, "stacked"),
    (109, 12, (2, 3), 5, F64, "halves"),
    (110, 7, (5,), 7, F32, "halves"),
]
POOL_IDS = ["float32-stacked-pool0-pool1", "float64-noncontiguous-chunk-halves", "float32-noncontiguous-every-slot"]
POOL_WHERE = {
    "stacked": (
        "kv_write 写入 pool[0] / pool[1] 后，从 pool 看",
        "seen through pool after kv_write wrote pool[0] / pool[1]",
    ),
    "halves": (
        "kv_write 写入不连续的缓存 pool.chunk(2, dim=-1) 后，从 pool 看",
        "seen through pool after kv_write wrote the non-contiguous caches pool.chunk(2, dim=-1)",
    ),
}


@pytest.mark.hint(
    "eager：缓存是同一块缓冲区的视图（连续或不连续）", "eager: caches that are views of one buffer (contiguous or not)"
)
@pytest.mark.parametrize("case", POOL_CASES, ids=POOL_IDS)
def test_kv_write_into_views_of_one_buffer(probe, make_kv, check_kv, case):
    # The caches are views of one buffer, as in a real KV pool; the write must land in that
    # buffer (swapping a cache's storage with .data = ... or set_ leaves the buffer unchanged).
    seed, n, trailing, num_slots, dtype, layout = case
    k_cache, v_cache, slots, k, v = make_kv(seed, n, trailing, num_slots, dtype)
    pool = torch.stack([k_cache, v_cache]) if layout == "stacked" else torch.cat([k_cache, v_cache], dim=-1)
    obs = probe(
        "kv_write_into_pool",
        pool,
        layout,
        slots,
        k,
        v,
        hint=msg(
            "对一整块缓冲区的视图调用 kv_write 时出错（缓存可以不连续）",
            "kv_write failed on views of one buffer (the caches need not be contiguous)",
        ),
    )
    got = obs["pool"]
    assert list(got.shape) == list(pool.shape) and got.dtype == pool.dtype, msg(
        "缓冲区的形状或 dtype 变了", "the shape or dtype of the buffer changed"
    )
    views = (got[0], got[1]) if layout == "stacked" else got.chunk(2, dim=-1)
    seen = {"k_cache": views[0], "v_cache": views[1], "same_memory": obs["same_memory"], "written": obs["written"]}
    check_kv(seen, (k_cache, v_cache, slots, k, v), POOL_WHERE[layout])
    assert obs["returned"] is None, _returned(f"实际返回了 {obs['returned']}", f"it returned {obs['returned']}")


@pytest.mark.hint(
    "meta：kv_write 在 meta 设备上（fake 不读数据）", "meta: kv_write on the meta device (the fake reads no data)"
)
def test_kv_write_on_meta_tensors(probe):
    obs = probe(
        "kv_write_meta",
        32,
        [2, 8],
        BF16,
        4,
        hint=msg(
            "在 meta 设备上调用 kv_write 出错（fake 实现不能读数据）",
            "calling kv_write on the meta device failed (a fake implementation must not read data)",
        ),
    )
    assert obs["returned"] is None, _returned(
        f"meta 设备上实际返回了 {obs['returned']}", f"on the meta device it returned {obs['returned']}"
    )


@pytest.mark.hint("fake：kv_write 在 FakeTensorMode 下", "fake: kv_write under FakeTensorMode")
def test_kv_write_under_fake_tensor_mode(probe, make_kv):
    inputs = make_kv(105, 10, (3,), 4, F32)
    obs = probe(
        "kv_write_fake",
        *inputs,
        hint=msg(
            "在 FakeTensorMode 下调用 kv_write 出错（fake 实现不能读数据）",
            "calling kv_write under FakeTensorMode failed (a fake implementation must not read data)",
        ),
    )
    assert obs["returned"] is None, _returned(
        f"FakeTensorMode 下实际返回了 {obs['returned']}", f"under FakeTensorMode it returned {obs['returned']}"
    )


@pytest.mark.hint("opcheck：kv_write", "opcheck: kv_write")
@pytest.mark.weight(18)
def test_kv_write_opcheck(probe, make_kv, check_opcheck):
    inputs = make_kv(106, 10, (2, 3), 4, F64)
    result = probe("kv_write_opcheck", *inputs, hint=msg("opcheck(kv_write) 出错", "opcheck(kv_write) failed"))
    check_opcheck(result, "kv_write", inputs)


@pytest.mark.hint(
    "torch.compile：编译后 kv_write 仍写进缓存", "torch.compile: compiled kv_write still writes the caches"
)
@pytest.mark.weight(16)
def test_kv_write_compiled_fullgraph_aot_eager(probe, make_kv, check_kv):
    # Same shapes as the public check (the compiled graph is reused), different values.
    inputs = make_kv(107, 8, (4,), 3, F32)
    obs = probe(
        "kv_write_compiled",
        *inputs,
        hint=msg(
            'torch.compile(fullgraph=True, backend="aot_eager") 编译调用 kv_write 的函数时出错'
            "（mutates_args 声明了 k_cache 和 v_cache 吗？custom_op 据此自动提供 fake 实现）",
            "compiling a function that calls kv_write with torch.compile(fullgraph=True, "
            'backend="aot_eager") failed (does mutates_args declare k_cache and v_cache? custom_op '
            "then provides the fake itself)",
        ),
    )
    check_kv(obs, inputs, COMPILED, compiled=True)


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


@pytest.mark.hint(
    "eager：rms_norm 的数值（各种 dtype、维数与 eps），不修改输入",
    "eager: rms_norm values (several dtypes, ranks and eps), inputs left alone",
)
@pytest.mark.parametrize("case", RMS_CASES, ids=RMS_IDS)
def test_rms_norm_eager_matches_formula(probe, make_rms, rms_expected, check_rms_out, inputs_unchanged, case):
    seed, shape, dtype, eps = case
    x, w, _ = make_rms(seed, shape, dtype)
    obs = probe("rms_norm_eager", x, w, eps, hint=msg("eager 调用 rms_norm 时出错", "an eager call of rms_norm failed"))
    check_rms_out(obs["out"], rms_expected(x, w, eps), x, EAGER_RMS)
    assert inputs_unchanged(obs, x, w), msg(
        "rms_norm 不能修改输入 x 或 weight", "rms_norm must not modify its inputs x or weight"
    )
    assert not obs["shares_input_memory"], msg(
        "rms_norm 的输出必须是新张量，不能与输入共享内存",
        "the output of rms_norm must be a new tensor, not sharing memory with an input",
    )


@pytest.mark.hint("eager：不传 eps 时用默认值 1e-6", "eager: eps defaults to 1e-6 when it is not passed")
def test_rms_norm_default_eps_is_1e_6(probe, make_rms, rms_expected, check_rms_out):
    # Small inputs: mean(x^2) is about 1e-6, so the value of eps matters.
    x, w, _ = make_rms(206, (4, 16), F64, scale=1e-3)
    obs = probe(
        "rms_norm_eager", x, w, None, hint=msg("不传 eps 调用 rms_norm 时出错", "calling rms_norm without eps failed")
    )
    check_rms_out(
        obs["out"],
        rms_expected(x, w, 1e-6),
        x,
        ("不传 eps 调用 rms_norm（eps 默认 1e-6）", "rms_norm called without eps (eps defaults to 1e-6)"),
    )


@pytest.mark.hint("meta：rms_norm 输出的形状、dtype 与设备", "meta: shape, dtype and device of rms_norm's output")
@pytest.mark.parametrize("shape,dtype", [((2, 7, 4096), BF16), ((11,), F32)], ids=["bfloat16-3d", "float32-1d"])
@pytest.mark.weight(6)
def test_rms_norm_on_meta_tensors(probe, check_rms_meta, shape, dtype):
    obs = probe(
        "rms_norm_meta",
        list(shape),
        dtype,
        hint=guessing(
            "在 meta 设备上调用 rms_norm 出错",
            "calling rms_norm on the meta device failed",
        ),
    )
    check_rms_meta(obs, shape, dtype)


@pytest.mark.hint("fake：rms_norm 在 FakeTensorMode 下", "fake: rms_norm under FakeTensorMode")
@pytest.mark.weight(8)
def test_rms_norm_under_fake_tensor_mode(probe, make_rms):
    x, w, _ = make_rms(207, (3, 10), F64)
    obs = probe(
        "rms_norm_fake",
        x,
        w,
        1e-6,
        hint=guessing(
            "在 FakeTensorMode 下调用 rms_norm 出错",
            "calling rms_norm under FakeTensorMode failed",
        ),
    )
    assert obs["is_tensor"] and obs["type"] == "FakeTensor", msg(
        f"FakeTensorMode 下 rms_norm 应返回 FakeTensor，得到 {obs['type']}",
        f"under FakeTensorMode rms_norm must return a FakeTensor; it returned {obs['type']}",
    )
    meta = (obs["shape"], obs["dtype"], obs["device"])
    assert meta == ([3, 10], "torch.float64", "cpu"), msg(
        f"FakeTensorMode 下输出元数据不对：{meta}，应与 x 相同",
        f"wrong output metadata under FakeTensorMode: {meta}; it must match x",
    )


@pytest.mark.hint("opcheck：rms_norm", "opcheck: rms_norm")
@pytest.mark.weight(28)
def test_rms_norm_opcheck(probe, make_rms, check_opcheck):
    x, w, _ = make_rms(208, (3, 8), F64)
    result = probe("rms_norm_opcheck", x, w, 1e-2, hint=msg("opcheck(rms_norm) 出错", "opcheck(rms_norm) failed"))
    check_opcheck(result, "rms_norm", (x, w, 1e-2), grad=(0, 1))


# ================================================================ rms_norm backward

BWD_CASES = [
    (301, (2, 3, 12), F64, 0.1),
    (302, (5, 16), F32, 1e-6),
    (305, (12,), F64, 0.1),
    # Small on purpose: a backward computed natively in bfloat16 (allowed) stays well inside
    # the bfloat16 tolerance here; long reductions in bfloat16 would not.
    (306, (3, 5, 64), BF16, 1e-6),
]


@pytest.mark.hint(
    "反向：与公式的梯度比对（各种 dtype，包括一维输入），不修改输入",
    "backward: gradients against the formula (several dtypes, 1-D input included), inputs left alone",
)
@pytest.mark.parametrize("case", BWD_CASES, ids=["float64-3d-eps0.1", "float32-2d", "float64-1d", "bfloat16-3d"])
@pytest.mark.weight(2)
def test_rms_norm_backward_matches_formula(probe, make_rms, rms_expected_grads, check_grads, inputs_unchanged, case):
    seed, shape, dtype, eps = case
    x, w, g = make_rms(seed, shape, dtype)
    obs = probe("rms_norm_backward", x, w, eps, g, hint=BACKWARD_HINT)
    assert inputs_unchanged(obs, x, w), msg(
        "前向 + 反向之后 x 或 weight 被改动了：rms_norm（包括 setup_context 和反向）不能修改输入",
        "x or weight changed after the forward and backward: rms_norm (setup_context and the backward "
        "included) must not modify its inputs",
    )
    dx, dw = rms_expected_grads(x, w, eps, g)
    check_grads(obs, dx, dw, dtype, ("反向", "backward"))


@pytest.mark.hint("反向：float64 的 gradcheck（非默认 eps）", "backward: gradcheck in float64 (a non-default eps)")
@pytest.mark.weight(6)
def test_rms_norm_gradcheck_float64(probe, make_rms, gradcheck_plan, check_gradcheck):
    # A non-default eps: with the default eps PyTorch drops the argument and a backward that
    # returns too few gradients would slip through.
    x, w, _ = make_rms(303, (3, 6), F64)
    grad_outs, directions, points = gradcheck_plan(x, w, seed=7)
    obs = probe(
        "rms_norm_gradcheck",
        x,
        w,
        0.05,
        grad_outs,
        points,
        hint=msg(
            "gradcheck 对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值）",
            "gradcheck failed in the backward of rms_norm (it must return one value per input x, weight, eps)",
        ),
    )
    check_gradcheck(obs, grad_outs, directions, (x, w))


@pytest.mark.hint("torch.compile：rms_norm 的前向与反向", "torch.compile: forward and backward of rms_norm")
@pytest.mark.weight(48)
def test_rms_norm_compiled_fullgraph_aot_eager_forward_backward(
    probe, make_rms, rms_expected, rms_expected_grads, check_rms_out, check_grads
):
    x, w, g = make_rms(304, (4, 24), F32)
    eps = 1e-3
    obs = probe(
        "rms_norm_compiled",
        x,
        w,
        eps,
        g,
        hint=msg(
            'torch.compile(fullgraph=True, backend="aot_eager") 下 rms_norm 出错'
            "（需要 fake 实现，反向要用 register_autograd 注册）",
            'rms_norm failed under torch.compile(fullgraph=True, backend="aot_eager") '
            "(it needs a fake implementation, and a backward registered with register_autograd)",
        ),
    )
    check_rms_out(obs["out"], rms_expected(x, w, eps), x, COMPILED)
    dx, dw = rms_expected_grads(x, w, eps, g)
    check_grads(obs, dx, dw, F32, (COMPILED[0] + "的反向", "backward " + COMPILED[1]))
