"""Exercise 100, public tests: every lesson of the exercise on a few inputs (what "Run" runs).

Your operators are reached only through torch.ops.ex100.* (see probes.py for exactly how).
"""

import pytest
import torch

from judge.report.feedback import guessing, msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16
EAGER_KV = ("eager 调用 kv_write 后", "after an eager call of kv_write")
COMPILED = ('torch.compile(backend="aot_eager") 下', 'under torch.compile(backend="aot_eager")')


@pytest.mark.parametrize("name", ["kv_write", "rms_norm"])
def test_op_registered_under_ex100(probe, name):
    found = probe("op_exists", name, hint=msg("查找算子时出错", "looking up the operator failed"))
    assert found, msg(
        f'没有找到 torch.ops.ex100.{name}：custom_op 的名字应为 "ex100::{name}"',
        f'torch.ops.ex100.{name} does not exist: the custom_op name must be "ex100::{name}"',
    )


@pytest.mark.weight(30)
def test_kv_write_schema_declares_exactly_the_two_caches(probe):
    s = probe("schema", "kv_write", hint=msg("读取 kv_write 的 schema 时出错", "reading the schema of kv_write failed"))
    assert s is not None, msg("没有找到 torch.ops.ex100.kv_write", "torch.ops.ex100.kv_write does not exist")
    written = {a["name"] for a in s["arguments"] if a["is_write"]}
    for name in ("k_cache", "v_cache"):
        assert name in written, msg(
            f"kv_write 写了 {name}，但 schema 没有把它声明为被修改（mutates_args 缺少 {name}）",
            f"kv_write writes {name}, but the schema does not declare it as mutated (mutates_args lacks {name})",
        )
    extra = sorted(written - {"k_cache", "v_cache"})
    assert not extra, msg(
        f'kv_write 只读 {extra}，schema 却声明它们被修改（mutates_args 多了，或用了 "unknown"）',
        f"kv_write only reads {extra}, yet the schema declares them mutated (mutates_args "
        f'lists too much, or is "unknown")',
    )


def test_rms_norm_schema_is_functional(probe):
    s = probe("schema", "rms_norm", hint=msg("读取 rms_norm 的 schema 时出错", "reading the schema of rms_norm failed"))
    assert s is not None, msg("没有找到 torch.ops.ex100.rms_norm", "torch.ops.ex100.rms_norm does not exist")
    written = [a["name"] for a in s["arguments"] if a["is_write"]]
    assert not written, msg(
        f"rms_norm 不修改输入，schema 却声明修改了 {written}（mutates_args 应为空）",
        f"rms_norm modifies no input, yet the schema declares {written} mutated (mutates_args must be empty)",
    )
    assert [a["name"] for a in s["arguments"]] == ["x", "weight", "eps"], msg(
        f"rms_norm 的参数应为 (x, weight, eps)：{s['text']}",
        f"the arguments of rms_norm must be (x, weight, eps): {s['text']}",
    )


# Caches of rank 2 and of other ranks: one slot is a row of any shape, a scalar included (1-D caches).
@pytest.mark.parametrize("trailing", [(4,), ()], ids=["2d-caches", "1d-caches"])
def test_kv_write_eager_writes_in_place(probe, make_kv, check_kv, trailing):
    inputs = make_kv(1, 8, trailing, 3, F32)
    obs = probe("kv_write_eager", *inputs, hint=msg("eager 调用 kv_write 时出错", "an eager call of kv_write failed"))
    check_kv(obs, inputs, EAGER_KV)
    assert obs["returned"] is None, msg(
        f"kv_write 应返回 None，实际返回了 {obs['returned']}",
        f"kv_write must return None, but it returned {obs['returned']}",
    )


def test_kv_write_into_noncontiguous_halves_of_one_buffer(probe, make_kv, check_kv):
    # k_cache, v_cache = pool.chunk(2, dim=-1): not contiguous, so .view(...) on them can fail,
    # and the write must land in pool itself.
    k_cache, v_cache, slots, k, v = make_kv(7, 6, (2, 3), 3, F64)
    pool = torch.cat([k_cache, v_cache], dim=-1)
    obs = probe(
        "kv_write_into_pool",
        pool,
        "halves",
        slots,
        k,
        v,
        hint=msg(
            "对不连续的缓存（同一块缓冲区的两半）调用 kv_write 时出错",
            "kv_write failed on non-contiguous caches (the two halves of one buffer)",
        ),
    )
    halves = obs["pool"].chunk(2, dim=-1)
    seen = {"k_cache": halves[0], "v_cache": halves[1], "same_memory": obs["same_memory"], "written": obs["written"]}
    check_kv(
        seen,
        (k_cache, v_cache, slots, k, v),
        (
            "kv_write 写入不连续的缓存 pool.chunk(2, dim=-1) 后，从 pool 看",
            "seen through pool after kv_write wrote the non-contiguous caches pool.chunk(2, dim=-1)",
        ),
    )


@pytest.mark.weight(16)
def test_kv_write_compiled_fullgraph_aot_eager(probe, make_kv, check_kv):
    inputs = make_kv(2, 8, (4,), 3, F32)
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


@pytest.mark.weight(18)
def test_kv_write_opcheck(probe, make_kv, check_opcheck):
    inputs = make_kv(6, 8, (2, 2), 3, F64)
    result = probe("kv_write_opcheck", *inputs, hint=msg("opcheck(kv_write) 出错", "opcheck(kv_write) failed"))
    check_opcheck(result, "kv_write", inputs)


@pytest.mark.parametrize(
    "dtype,eps", [(F32, 1e-6), (BF16, 1e-6), (F64, 0.25)], ids=["float32", "bfloat16", "float64-eps0.25"]
)
def test_rms_norm_eager_matches_formula(probe, make_rms, rms_expected, check_rms_out, dtype, eps):
    x, w, _ = make_rms(3, (2, 3, 16), dtype)
    obs = probe("rms_norm_eager", x, w, eps, hint=msg("eager 调用 rms_norm 时出错", "an eager call of rms_norm failed"))
    where = (f"eager 调用 rms_norm（eps={eps}）", f"eager call of rms_norm (eps={eps})")
    check_rms_out(obs["out"], rms_expected(x, w, eps), x, where)


@pytest.mark.weight(6)
def test_rms_norm_on_meta_tensors(probe, check_rms_meta):
    shape = [2, 5, 64]
    obs = probe(
        "rms_norm_meta",
        shape,
        BF16,
        hint=guessing(
            "在 meta 设备上调用 rms_norm 出错",
            "calling rms_norm on the meta device failed",
        ),
    )
    check_rms_meta(obs, shape, BF16)


@pytest.mark.weight(28)
def test_rms_norm_opcheck(probe, make_rms, check_opcheck):
    x, w, _ = make_rms(9, (2, 6), F64)
    result = probe("rms_norm_opcheck", x, w, 1e-2, hint=msg("opcheck(rms_norm) 出错", "opcheck(rms_norm) failed"))
    check_opcheck(result, "rms_norm", (x, w, 1e-2), grad=(0, 1))


BACKWARD_HINT = msg(
    "对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值，eps 为 None）",
    "the backward of rms_norm failed (it must return one value per input x, weight, eps; None for eps)",
)


@pytest.mark.parametrize(
    "shape,dtype", [((3, 8), F64), ((12,), F64), ((2, 3, 16), BF16)], ids=["float64-2d", "float64-1d", "bfloat16-3d"]
)
@pytest.mark.weight(2)
def test_rms_norm_backward_matches_formula(
    probe, make_rms, rms_expected_grads, check_grads, inputs_unchanged, shape, dtype
):
    # A 1-D x has no leading dimensions: the gradient of weight sums over none of them.
    x, w, g = make_rms(4, shape, dtype)
    obs = probe("rms_norm_backward", x, w, 0.1, g, hint=BACKWARD_HINT)
    assert inputs_unchanged(obs, x, w), msg(
        "前向 + 反向之后 x 或 weight 被改动了：rms_norm（包括 setup_context 和反向）不能修改输入",
        "x or weight changed after the forward and backward: rms_norm (setup_context and the backward "
        "included) must not modify its inputs",
    )
    dx, dw = rms_expected_grads(x, w, 0.1, g)
    name = str(dtype).removeprefix("torch.")
    check_grads(
        obs, dx, dw, dtype, (f"{len(shape)} 维 {name} 输入的反向", f"backward on a {len(shape)}-D {name} input")
    )


@pytest.mark.weight(6)
def test_rms_norm_gradcheck_float64(probe, make_rms, gradcheck_plan, check_gradcheck):
    x, w, _ = make_rms(5, (2, 5), F64)
    grad_outs, directions, points = gradcheck_plan(x, w, seed=7)
    obs = probe(
        "rms_norm_gradcheck",
        x,
        w,
        0.1,
        grad_outs,
        points,
        hint=msg(
            "gradcheck 对 rms_norm 做反向时出错（反向应对 x, weight, eps 各返回一个值）",
            "gradcheck failed in the backward of rms_norm (it must return one value per input x, weight, eps)",
        ),
    )
    check_gradcheck(obs, grad_outs, directions, (x, w))
