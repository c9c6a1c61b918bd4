"""Exercise 101, hidden tests.

The same ideas as the public tests with more programs, dtypes and shapes, plus how the counter
behaves as an object: a fresh Counter per instance, nesting, entering the same counter twice.
Every expected count comes from the checker's own TorchDispatchMode at test time.
"""

import pytest
import torch

from judge.report.feedback import msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


@pytest.mark.hint(
    "计数器：TorchDispatchMode 的子类，新建时 counts 为空",
    "the counter: a TorchDispatchMode subclass whose counts start empty",
)
def test_opcounter_is_a_dispatch_mode_with_empty_counts(probe, ex):
    obs = probe("new_counter", hint=msg("创建 OpCounter() 时出错", "creating OpCounter() failed"))
    assert obs["is_dispatch_mode"], msg(
        "OpCounter 应继承 torch.utils._python_dispatch.TorchDispatchMode",
        "OpCounter must subclass torch.utils._python_dispatch.TorchDispatchMode",
    )
    ex.check_mapping(
        obs["counts"], ("新建的 OpCounter", "a new OpCounter"), ("OpCounter().counts", "OpCounter().counts")
    )
    assert not obs["counts"]["counts"], msg(
        "新建的 OpCounter 的 counts 应为空", "the counts of a new OpCounter must be empty"
    )


PROGRAM_CASES = [
    ("rmsnorm_linear_silu", F32, 11, ()),
    ("rmsnorm_linear_silu", BF16, 12, ()),
    ("mlp", F32, 13, ()),
    ("mlp", F64, 14, ()),
    ("mlp_backward", F32, 15, "grad"),
    ("mlp_backward", F64, 16, "grad"),
    ("keyword_ops", F32, 17, ()),
    ("keyword_ops", F64, 18, ()),
    ("inplace_and_views", F32, 19, ()),
]


@pytest.mark.hint(
    "一段代码的计数与结果（更多程序与 dtype，包括反向）",
    "counts and results of a program (more programs and dtypes, backward included)",
)
@pytest.mark.parametrize(
    "name,dtype,seed,grad", PROGRAM_CASES, ids=[f"{c[0]}-{str(c[1]).removeprefix('torch.')}" for c in PROGRAM_CASES]
)
def test_counts_and_values_of_program(probe, ex, check_values, name, dtype, seed, grad):
    inputs = ex.make_inputs(name, seed, dtype=dtype, batch=3, d=24, hidden=40, out=6)
    grad = ex.MLP_GRAD if grad == "grad" else ()
    obs = probe(
        "count_program",
        name,
        inputs,
        grad,
        hint=msg(f"在 OpCounter 里运行 {name} 时出错", f"running {name} inside an OpCounter failed"),
    )
    counts, outputs = ex.expected_program(name, inputs, grad)
    where = (name, name)
    check_values(obs["outputs"], outputs, where)
    ex.check_counts(obs["counts"], counts, where)


@pytest.mark.hint("作为对象：第二个计数器新建时为空", "as an object: a second counter starts empty")
def test_second_counter_starts_empty(probe, ex):
    inputs = ex.make_inputs("mlp", 21)
    obs = probe(
        "two_counters_in_a_row",
        "mlp",
        inputs,
        hint=msg("依次使用两个 OpCounter 时出错", "using two OpCounters one after the other failed"),
    )
    counts, _ = ex.expected_program("mlp", inputs)
    ex.check_two_counters(obs, counts)


@pytest.mark.hint(
    "作为对象：多次进入同一个计数器会累加，with 之外不计",
    "as an object: entering one counter again adds up, calls outside with are not counted",
)
@pytest.mark.parametrize("times", [2, 3], ids=["twice", "three-times"])
def test_reused_counter_accumulates_only_inside_with(probe, ex, times):
    inputs = ex.make_inputs("rmsnorm_linear_silu", 22 + times)
    obs = probe(
        "reused_counter",
        "rmsnorm_linear_silu",
        inputs,
        times,
        hint=msg("多次进入同一个 OpCounter 时出错", "entering the same OpCounter several times failed"),
    )
    counts, _ = ex.expected_program("rmsnorm_linear_silu", inputs)
    want = {name: n * times for name, n in counts.items()}
    ex.check_counts(
        obs["counts"],
        want,
        (
            "同一个 OpCounter 进入多次（counts 应累加，且只统计 with 块里的调用）",
            "one OpCounter entered several times (counts add up, and only calls inside the with blocks count)",
        ),
    )


@pytest.mark.hint(
    "作为对象：嵌套时内外两层都计到内层的算子",
    "as an object: with two nested counters, both count the inner block's operators",
)
def test_nested_counters_both_see_inner_ops(probe, ex, check_values):
    outer_in = ex.make_inputs("rmsnorm_linear_silu", 31)
    inner_in = ex.make_inputs("mlp", 32)
    obs = probe(
        "nested_counters",
        "rmsnorm_linear_silu",
        outer_in,
        "mlp",
        inner_in,
        hint=msg("嵌套使用两个 OpCounter 时出错", "nesting two OpCounters failed"),
    )
    outer_counts, outer_out = ex.expected_program("rmsnorm_linear_silu", outer_in)
    inner_counts, inner_out = ex.expected_program("mlp", inner_in)
    check_values(obs["outer_outputs"], outer_out, ("嵌套时外层的计算", "the outer computation of two nested counters"))
    check_values(obs["inner_outputs"], inner_out, ("嵌套时内层的计算", "the inner computation of two nested counters"))
    ex.check_counts(obs["inner"], inner_counts, ("嵌套时内层的 OpCounter", "the inner of two nested OpCounters"))
    ex.check_counts(
        obs["outer"],
        ex.add_counts(outer_counts, inner_counts),
        (
            "嵌套时外层的 OpCounter（内层的算子也会再分发到外层）",
            "the outer of two nested OpCounters (the inner block's operators re-dispatch to it too)",
        ),
    )


# ---------------------------------------------------------------- count_sdpa_ops

SDPA_CASES = [
    # id, seed, (batch, heads, q_len, kv_len, dim, v_dim), dtype, options
    ("chapter-causal", 41, (1, 8, 128, 128, 64, None), F32, {"is_causal": True}),
    ("chapter-not-causal", 42, (1, 8, 128, 128, 64, None), F32, {"is_causal": False}),
    ("defaults", 43, (2, 2, 10, 10, 8, None), F32, {}),
    ("decode-one-query", 44, (2, 4, 1, 33, 16, None), F32, {"is_causal": False}),
    ("kv-longer-causal", 45, (1, 2, 8, 20, 16, None), F32, {"is_causal": True}),
    ("float64", 46, (1, 3, 9, 9, 8, None), F64, {"is_causal": True}),
    ("bfloat16", 47, (1, 3, 9, 9, 8, None), BF16, {"is_causal": True}),
    ("vdim-not-causal", 48, (2, 2, 7, 7, 12, 4), F32, {"is_causal": False}),
    ("vdim-causal", 49, (2, 2, 7, 7, 12, 4), F32, {"is_causal": True}),
    ("backward", 50, (1, 4, 16, 16, 8, None), F32, {"is_causal": False, "backward": True}),
    ("backward-causal", 51, (2, 2, 12, 12, 16, None), F32, {"is_causal": True, "backward": True}),
    ("backward-float64", 52, (1, 2, 6, 6, 8, None), F64, {"backward": True}),
    ("backward-vdim-causal", 53, (1, 2, 6, 6, 8, 4), F32, {"is_causal": True, "backward": True}),
    ("backward-false-explicit", 54, (1, 2, 6, 6, 8, None), F32, {"is_causal": True, "backward": False}),
]


@pytest.mark.hint(
    "SDPA：计数（更多形状、dtype、因果掩码与反向）", "SDPA: counts (more shapes, dtypes, causal masks and backward)"
)
@pytest.mark.parametrize("seed,shape,dtype,options", [c[1:] for c in SDPA_CASES], ids=[c[0] for c in SDPA_CASES])
def test_count_sdpa_ops(probe, ex, check_sdpa, seed, shape, dtype, options):
    batch, heads, q_len, kv_len, dim, v_dim = shape
    q, k, v = ex.make_qkv(seed, batch, heads, q_len, kv_len, dim, v_dim=v_dim, dtype=dtype)
    call = ", ".join(f"{key}={val}" for key, val in options.items())
    obs = probe(
        "count_sdpa",
        q,
        k,
        v,
        options,
        hint=msg(f"count_sdpa_ops(q, k, v, {call}) 出错", f"count_sdpa_ops(q, k, v, {call}) failed"),
    )
    check_sdpa(obs, q, k, v, options, ("SDPA", "SDPA"))
