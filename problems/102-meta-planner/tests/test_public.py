"""Exercise 102, public tests: a smaller version of the hidden checks (what "Run" / --public runs).

The models are built by probes.build_module from the specs below; the expected numbers come
from the same specs built on the meta device in the checker (see conftest.py).
"""

import torch


def test_estimate_small_lm_with_tied_lm_head(probe, ex):
    spec = ex.lm(vocab=100, dim=32, heads=4, ffn=64, layers=2, tie=True)
    obs = probe("estimate", spec, hint="estimate(build) 出错")
    ex.check_estimate(obs, spec, "小语言模型（lm_head 与 embedding 共享权重）")


def test_estimate_convnet_counts_every_buffer(probe, ex):
    spec = ex.convnet(channels=[3, 8, 16], kernel=3)
    obs = probe("estimate", spec, hint="estimate(build) 出错")
    ex.check_estimate(obs, spec, "卷积网络（BatchNorm 的 buffer 与自己注册的 buffer）")


def test_estimate_real_size_model_without_allocating(probe, ex):
    spec = ex.REAL_SIZE_BF16
    obs = probe("estimate", spec, hint="estimate(build) 在 100 亿参数的模型上出错")
    ex.check_estimate(obs, spec, "100 亿参数的模型（bf16，norm 为 fp32）")


def test_output_shape_small_lm_default_dtype(probe, ex):
    spec = ex.lm(vocab=100, dim=32, heads=4, ffn=64, layers=2, tie=True)
    obs = probe("output_shape", spec, (2, 7), hint="output_shape(build, (2, 7)) 出错")
    ex.check_shape(obs, spec, (2, 7), "小语言模型，输入 token id [2, 7]")


def test_output_shape_mlp_bfloat16_input(probe, ex):
    spec = ex.mlp([16, 32, 24, 8], bias=True, repeat=2, dtype="bfloat16")
    obs = probe("output_shape", spec, (4, 3, 16), torch.bfloat16,
                hint="output_shape(build, (4, 3, 16), torch.bfloat16) 出错")
    ex.check_shape(obs, spec, (4, 3, 16), "MLP，bf16 输入 [4, 3, 16]")


def test_output_shape_real_size_model(probe, ex):
    spec = ex.REAL_SIZE_BF16
    obs = probe("output_shape", spec, (1, 16), hint="output_shape 在 100 亿参数的模型上出错")
    ex.check_shape(obs, spec, (1, 16), "100 亿参数的模型，输入 token id [1, 16]")
