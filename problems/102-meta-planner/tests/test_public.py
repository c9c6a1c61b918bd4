"""Exercise 102, public tests: every lesson of the exercise on a few models (what "Run" / --public runs).

The models are built by probes.build_module from the specs below; the expected numbers come
from the same specs built on the meta device in the checker (see conftest.py).
"""

import torch

from judge.report.feedback import msg

ESTIMATE_FAILED = msg("estimate(build) 出错", "estimate(build) failed")
REAL_SIZE = ("100 亿参数的模型（bf16，norm 为 fp32）", "the 10^10-parameter model (bf16, fp32 norms)")


def test_estimate_small_lm_with_tied_lm_head(probe, ex):
    spec = ex.lm(vocab=100, dim=32, heads=4, ffn=64, layers=2, tie=True)
    obs = probe("estimate", spec, hint=ESTIMATE_FAILED)
    ex.check_estimate(
        obs,
        spec,
        (
            "语言模型（lm_head 与 embedding 共享权重）",
            "a language model (lm_head shares the embedding's weight)",
        ),
    )


def test_estimate_mlp_with_a_module_used_twice(probe, ex):
    spec = ex.mlp([8, 16, 16, 4], bias=True, repeat=2)
    obs = probe("estimate", spec, hint=ESTIMATE_FAILED)
    ex.check_estimate(
        obs, spec, ("MLP（同一个隐藏层模块注册在两个位置）", "an MLP (one hidden-layer module registered twice)")
    )


def test_estimate_convnet_counts_every_buffer(probe, ex):
    spec = ex.convnet(channels=[3, 8, 16], kernel=3)
    obs = probe("estimate", spec, hint=ESTIMATE_FAILED)
    ex.check_estimate(
        obs,
        spec,
        (
            "卷积网络（BatchNorm 的 buffer 与自己注册的 buffer）",
            "a conv net (BatchNorm's buffers and its own registered buffers)",
        ),
    )


def test_estimate_real_size_model_without_allocating(probe, ex):
    spec = ex.REAL_SIZE_BF16
    obs = probe(
        "estimate",
        spec,
        hint=msg("estimate(build) 在 100 亿参数的模型上出错", "estimate(build) failed on the 10^10-parameter model"),
    )
    ex.check_estimate(obs, spec, REAL_SIZE)


def test_output_shape_small_lm_default_dtype(output_shape, ex):
    spec = ex.lm(vocab=100, dim=32, heads=4, ffn=64, layers=2, tie=True)
    obs = output_shape(spec, (2, 7), hint=msg("output_shape(build, (2, 7)) 出错", "output_shape(build, (2, 7)) failed"))
    ex.check_shape(obs, spec, (2, 7), ("语言模型，输入 token id [2, 7]", "a language model, token ids [2, 7]"))


def test_output_shape_mlp_bfloat16_input(output_shape, ex):
    spec = ex.mlp([16, 32, 24, 8], bias=True, repeat=2, dtype="bfloat16")
    obs = output_shape(
        spec,
        (4, 3, 16),
        torch.bfloat16,
        hint=msg(
            "output_shape(build, (4, 3, 16), torch.bfloat16) 出错",
            "output_shape(build, (4, 3, 16), torch.bfloat16) failed",
        ),
    )
    ex.check_shape(obs, spec, (4, 3, 16), ("MLP，bf16 输入 [4, 3, 16]", "an MLP, a bf16 input [4, 3, 16]"))


def test_output_shape_real_size_model(output_shape, ex):
    spec = ex.REAL_SIZE_BF16
    obs = output_shape(
        spec,
        (1, 16),
        hint=msg("output_shape 在 100 亿参数的模型上出错", "output_shape failed on the 10^10-parameter model"),
    )
    ex.check_shape(obs, spec, (1, 16), (REAL_SIZE[0] + "，输入 token id [1, 16]", REAL_SIZE[1] + ", token ids [1, 16]"))
