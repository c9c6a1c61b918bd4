"""Exercise 101, public tests: a smaller version of the hidden checks (what "Run" / --public runs).

Every expected count is computed here, at test time, by running the same code under the
checker's own TorchDispatchMode on the installed torch (see conftest.py and probes.py).
"""

import torch

F32 = torch.float32


def test_opcounter_is_a_dispatch_mode_with_an_empty_counter(probe):
    obs = probe("new_counter", hint="创建 OpCounter() 时出错")
    assert obs["is_dispatch_mode"], "OpCounter 应继承 torch.utils._python_dispatch.TorchDispatchMode"
    counts = obs["counts"]
    assert counts["is_counter"], f"OpCounter().counts 应是 collections.Counter，实际是 {counts['type']}"
    assert not counts["counts"], f"新建的 OpCounter 的 counts 应为空，实际是 {counts['counts']}"


def test_counts_the_chapter_rmsnorm_linear_silu(probe, ex, check_values):
    inputs = ex.make_inputs("rmsnorm_linear_silu", 1)
    obs = probe("count_program", "rmsnorm_linear_silu", inputs, hint="在 OpCounter 里运行 RMSNorm + Linear + SiLU 时出错")
    counts, outputs = ex.expected_program("rmsnorm_linear_silu", inputs)
    ex.check_counts(obs["counts"], counts, "RMSNorm + Linear + SiLU")
    check_values(obs["outputs"], outputs, "RMSNorm + Linear + SiLU")


def test_keyword_arguments_reach_func(probe, ex, check_values):
    inputs = ex.make_inputs("keyword_ops", 2)
    obs = probe("count_program", "keyword_ops", inputs, hint="在 OpCounter 里运行带关键字参数的算子时出错")
    counts, outputs = ex.expected_program("keyword_ops", inputs)
    check_values(obs["outputs"], outputs, "div(rounding_mode=...)、sum(dtype=...) 等")
    ex.check_counts(obs["counts"], counts, "div(rounding_mode=...)、sum(dtype=...) 等")


def test_sdpa_forward_chapter_input_causal(probe, ex, check_sdpa):
    q, k, v = ex.make_qkv(3, 1, 8, 128, 128, 64)
    options = {"is_causal": True}
    obs = probe("count_sdpa", q, k, v, options, hint="count_sdpa_ops(q, k, v, is_causal=True) 出错")
    check_sdpa(obs, q, k, v, options, "SDPA 前向（[1, 8, 128, 64]，因果掩码）")


def test_sdpa_forward_and_backward(probe, ex, check_sdpa):
    q, k, v = ex.make_qkv(4, 2, 4, 16, 16, 32)
    options = {"is_causal": False, "backward": True}
    obs = probe("count_sdpa", q, k, v, options, hint="count_sdpa_ops(..., backward=True) 出错")
    check_sdpa(obs, q, k, v, options, "SDPA 前向 + out.sum().backward()")


def test_sdpa_value_dim_differs_causal(probe, ex, check_sdpa):
    # v's head dim differs from q's and k's: on CPU this takes a different path than the chapter's.
    q, k, v = ex.make_qkv(5, 1, 2, 12, 12, 16, v_dim=8)
    options = {"is_causal": True}
    obs = probe("count_sdpa", q, k, v, options, hint="count_sdpa_ops(q, k, v, is_causal=True) 出错")
    check_sdpa(obs, q, k, v, options, "SDPA 前向（v 的 head dim 与 q、k 不同，因果掩码）")
