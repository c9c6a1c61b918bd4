"""Exercise 102, hidden tests: more specs, dtypes, shared modules and input shapes."""

import pytest
import torch

from judge.report.feedback import msg


def _lm(**kw):
    base = {"vocab": 100, "dim": 32, "heads": 4, "ffn": 64, "layers": 2, "tie": True}
    base.update(kw)
    return {"kind": "lm", **base}


def _mlp(widths, bias, repeat=1, dtype="float32"):
    return {"kind": "mlp", "widths": widths, "bias": bias, "repeat": repeat, "dtype": dtype}


def _conv(channels, kernel, dtype="float32"):
    return {"kind": "convnet", "channels": channels, "kernel": kernel, "dtype": dtype}


REAL_BF16 = {
    "kind": "lm",
    "vocab": 152064,
    "dim": 8192,
    "heads": 64,
    "ffn": 28672,
    "layers": 8,
    "tie": False,
    "dtype": "bfloat16",
    "norm_fp32": True,
}
REAL_F32_TIED = {
    "kind": "lm",
    "vocab": 152064,
    "dim": 8192,
    "heads": 64,
    "ffn": 28672,
    "layers": 8,
    "tie": True,
    "dtype": "float32",
}

ESTIMATE_CASES = [
    ("lm-tied-float32", _lm()),
    ("lm-untied-float32", _lm(tie=False)),
    ("lm-tied-bfloat16", _lm(vocab=257, dim=48, heads=6, ffn=96, layers=3, dtype="bfloat16")),
    (
        "lm-bfloat16-fp32-norms",
        _lm(vocab=300, dim=64, heads=8, ffn=160, layers=1, tie=False, dtype="bfloat16", norm_fp32=True),
    ),
    ("lm-no-blocks", _lm(layers=0)),
    ("mlp-bias", _mlp([10, 20, 30, 5], True)),
    ("mlp-no-bias-float16", _mlp([12, 24, 6], False, dtype="float16")),
    ("mlp-shared-hidden-layer", _mlp([8, 16, 16, 4], True, repeat=4)),
    ("convnet-3-stages", _conv([3, 16, 32, 64], 3)),
    ("convnet-bfloat16", _conv([1, 4, 8], 5, dtype="bfloat16")),
    ("real-size-bfloat16", REAL_BF16),
    ("real-size-float32-tied", REAL_F32_TIED),
]


@pytest.mark.hint(
    "estimate：参数个数、参数与 buffer 的字节数（更多模型、dtype 与共享方式）",
    "estimate: parameter count, parameter and buffer bytes (more models, dtypes and sharing)",
)
@pytest.mark.parametrize("spec", [c[1] for c in ESTIMATE_CASES], ids=[c[0] for c in ESTIMATE_CASES])
def test_estimate(probe, ex, spec):
    obs = probe("estimate", spec, hint=msg("estimate(build) 出错", "estimate(build) failed"))
    ex.check_estimate(obs, spec, _where(spec))


SHAPE_CASES = [
    # id, spec, input shape, dtype (None: use output_shape's default)
    ("lm-default-dtype", _lm(), (3, 5), None),
    ("lm-long-explicit", _lm(tie=False), (1, 1), torch.long),
    ("lm-int32-ids", _lm(vocab=77), (2, 9), torch.int32),
    ("lm-bfloat16-single-sequence", _lm(dtype="bfloat16", norm_fp32=True), (1, 11), torch.long),
    ("mlp-float32", _mlp([10, 20, 30, 5], True), (7, 10), torch.float32),
    ("mlp-float16-4d", _mlp([12, 24, 6], False, dtype="float16"), (2, 3, 4, 12), torch.float16),
    ("mlp-shared", _mlp([8, 16, 16, 4], True, repeat=3), (8,), torch.float32),
    ("convnet-odd-size", _conv([3, 16, 32, 64], 3), (2, 3, 33, 17), torch.float32),
    ("convnet-bfloat16", _conv([1, 4, 8], 5, dtype="bfloat16"), (3, 1, 28, 28), torch.bfloat16),
    ("real-size-bfloat16", REAL_BF16, (4, 2048), None),
    ("real-size-float32-tied", REAL_F32_TIED, (2, 64), torch.long),
]


@pytest.mark.hint(
    "output_shape：输出形状（更多模型、输入形状与 dtype）",
    "output_shape: the output shape (more models, input shapes and dtypes)",
)
@pytest.mark.parametrize("spec,shape,dtype", [c[1:] for c in SHAPE_CASES], ids=[c[0] for c in SHAPE_CASES])
def test_output_shape(output_shape, ex, spec, shape, dtype):
    args = (spec, shape) if dtype is None else (spec, shape, dtype)
    obs = output_shape(
        *args,
        hint=msg("output_shape(build, input_shape, dtype) 出错", "output_shape(build, input_shape, dtype) failed"),
    )
    ex.check_shape(obs, spec, shape, _where(spec))


_KINDS = {"lm": ("语言模型", "language model"), "mlp": ("MLP", "MLP"), "convnet": ("卷积网络", "conv net")}


def _where(spec):
    """The model family only: a hidden case's message never names its inputs."""
    return _KINDS[spec["kind"]]
