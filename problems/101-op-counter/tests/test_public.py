"""Exercise 101, public tests: every lesson of the exercise on a few inputs (what "Run" / --public runs).

Every expected count is computed here, at test time, by running the same code under the
checker's own TorchDispatchMode on the installed torch (see conftest.py and probes.py).
"""

import pytest

from judge.report.feedback import msg

CHAPTER = ("RMSNorm + Linear + SiLU", "RMSNorm + Linear + SiLU")
KEYWORDS = ("div(rounding_mode=...)、sum(dtype=...) 等", "div(rounding_mode=...), sum(dtype=...) and friends")


def test_opcounter_is_a_dispatch_mode_with_empty_counts(probe, ex):
    obs = probe("new_counter", hint=msg("创建 OpCounter() 时出错", "creating OpCounter() failed"))
    assert obs["is_dispatch_mode"], msg(
        "OpCounter 应继承 torch.utils._python_dispatch.TorchDispatchMode",
        "OpCounter must subclass torch.utils._python_dispatch.TorchDispatchMode",
    )
    where = ("新建的 OpCounter", "a new OpCounter")
    ex.check_mapping(obs["counts"], where, ("OpCounter().counts", "OpCounter().counts"))
    assert not obs["counts"]["counts"], msg(
        f"新建的 OpCounter 的 counts 应为空，实际是 {obs['counts']['counts']}",
        f"the counts of a new OpCounter must be empty, not {obs['counts']['counts']}",
    )


def test_counts_the_chapter_rmsnorm_linear_silu(probe, ex, check_values):
    inputs = ex.make_inputs("rmsnorm_linear_silu", 1)
    obs = probe(
        "count_program",
        "rmsnorm_linear_silu",
        inputs,
        hint=msg(
            "在 OpCounter 里运行 RMSNorm + Linear + SiLU 时出错",
            "running RMSNorm + Linear + SiLU inside an OpCounter failed",
        ),
    )
    counts, outputs = ex.expected_program("rmsnorm_linear_silu", inputs)
    ex.check_counts(obs["counts"], counts, CHAPTER)
    check_values(obs["outputs"], outputs, CHAPTER)


def test_keyword_arguments_reach_func(probe, ex, check_values):
    inputs = ex.make_inputs("keyword_ops", 2)
    obs = probe(
        "count_program",
        "keyword_ops",
        inputs,
        hint=msg(
            "在 OpCounter 里运行带关键字参数的算子时出错",
            "running operators with keyword arguments inside an OpCounter failed",
        ),
    )
    counts, outputs = ex.expected_program("keyword_ops", inputs)
    check_values(obs["outputs"], outputs, KEYWORDS)
    ex.check_counts(obs["counts"], counts, KEYWORDS)


def test_second_counter_starts_empty(probe, ex):
    inputs = ex.make_inputs("mlp", 6)
    obs = probe(
        "two_counters_in_a_row",
        "mlp",
        inputs,
        hint=msg("依次使用两个 OpCounter 时出错", "using two OpCounters one after the other failed"),
    )
    counts, _ = ex.expected_program("mlp", inputs)
    ex.check_two_counters(obs, counts)


def test_reused_counter_accumulates_only_inside_with(probe, ex):
    inputs = ex.make_inputs("rmsnorm_linear_silu", 7)
    obs = probe(
        "reused_counter",
        "rmsnorm_linear_silu",
        inputs,
        2,
        hint=msg("多次进入同一个 OpCounter 时出错", "entering the same OpCounter several times failed"),
    )
    counts, _ = ex.expected_program("rmsnorm_linear_silu", inputs)
    ex.check_counts(
        obs["counts"],
        {name: 2 * n for name, n in counts.items()},
        (
            "同一个 OpCounter 进入 2 次（counts 应累加，且只统计 with 块里的调用）",
            "one OpCounter entered twice (counts add up, and only calls inside the with blocks count)",
        ),
    )


def test_nested_counters_both_see_inner_ops(probe, ex):
    outer_in, inner_in = ex.make_inputs("rmsnorm_linear_silu", 8), ex.make_inputs("mlp", 9)
    obs = probe(
        "nested_counters",
        "rmsnorm_linear_silu",
        outer_in,
        "mlp",
        inner_in,
        hint=msg("嵌套使用两个 OpCounter 时出错", "nesting two OpCounters failed"),
    )
    outer_counts, _ = ex.expected_program("rmsnorm_linear_silu", outer_in)
    inner_counts, _ = ex.expected_program("mlp", inner_in)
    ex.check_counts(obs["inner"], inner_counts, ("嵌套时内层的 OpCounter", "the inner of two nested OpCounters"))
    ex.check_counts(
        obs["outer"],
        ex.add_counts(outer_counts, inner_counts),
        (
            "嵌套时外层的 OpCounter（内层的算子也会再分发到外层）",
            "the outer of two nested OpCounters (the inner block's operators re-dispatch to it too)",
        ),
    )


def test_sdpa_forward_chapter_input_causal(probe, ex, check_sdpa):
    q, k, v = ex.make_qkv(3, 1, 8, 128, 128, 64)
    options = {"is_causal": True}
    obs = probe(
        "count_sdpa",
        q,
        k,
        v,
        options,
        hint=msg("count_sdpa_ops(q, k, v, is_causal=True) 出错", "count_sdpa_ops(q, k, v, is_causal=True) failed"),
    )
    check_sdpa(
        obs, q, k, v, options, ("SDPA 前向（[1, 8, 128, 64]，因果掩码）", "SDPA forward ([1, 8, 128, 64], causal)")
    )


@pytest.mark.weight(20)
def test_sdpa_forward_and_backward(probe, ex, check_sdpa):
    q, k, v = ex.make_qkv(4, 2, 4, 16, 16, 32)
    options = {"is_causal": False, "backward": True}
    obs = probe(
        "count_sdpa",
        q,
        k,
        v,
        options,
        hint=msg("count_sdpa_ops(..., backward=True) 出错", "count_sdpa_ops(..., backward=True) failed"),
    )
    check_sdpa(obs, q, k, v, options, ("SDPA 前向 + out.sum().backward()", "SDPA forward + out.sum().backward()"))


def test_sdpa_value_dim_differs_causal(probe, ex, check_sdpa):
    # v's head dim differs from q's and k's: on CPU this takes a different path than the chapter's.
    q, k, v = ex.make_qkv(5, 1, 2, 12, 12, 16, v_dim=8)
    options = {"is_causal": True}
    obs = probe(
        "count_sdpa",
        q,
        k,
        v,
        options,
        hint=msg("count_sdpa_ops(q, k, v, is_causal=True) 出错", "count_sdpa_ops(q, k, v, is_causal=True) failed"),
    )
    check_sdpa(
        obs,
        q,
        k,
        v,
        options,
        (
            "SDPA 前向（v 的 head dim 与 q、k 不同，因果掩码）",
            "SDPA forward (v's head dim differs from q's and k's, causal)",
        ),
    )
