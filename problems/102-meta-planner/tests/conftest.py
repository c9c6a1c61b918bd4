"""Fixtures for exercise 102 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: the model specs
the tests use, and the expected values: parameter and buffer sizes from the same specs built
on the meta device here in the checker (``build_module`` is the problem's own code from
probes.py), output shapes from the layer formulas.
"""

import importlib.util
import types
from pathlib import Path

import pytest
import torch


def _load_probes():
    spec = importlib.util.spec_from_file_location("_ex102_probes", Path(__file__).with_name("probes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBES = _load_probes()


# ---------------------------------------------------------------- specs

def lm(vocab, dim, heads, ffn, layers, tie, dtype="float32", norm_fp32=False):
    return {"kind": "lm", "vocab": vocab, "dim": dim, "heads": heads, "ffn": ffn, "layers": layers,
            "tie": tie, "dtype": dtype, "norm_fp32": norm_fp32}


def mlp(widths, bias, repeat=1, dtype="float32"):
    return {"kind": "mlp", "widths": list(widths), "bias": bias, "repeat": repeat, "dtype": dtype}


def convnet(channels, kernel, dtype="float32"):
    return {"kind": "convnet", "channels": list(channels), "kernel": kernel, "dtype": dtype}


# About 10^10 parameters (Llama-2-13B / Qwen-14B class): 19-41 GB of weights if materialised.
REAL_SIZE_BF16 = lm(152064, 8192, 64, 28672, 8, tie=False, dtype="bfloat16", norm_fp32=True)
REAL_SIZE_F32_TIED = lm(152064, 8192, 64, 28672, 8, tie=True, dtype="float32")


# ---------------------------------------------------------------- expected values

def expected_estimate(spec):
    """The answer, and the usual wrong answers (for hints), from the spec built on meta."""
    with torch.device("meta"):
        m = PROBES.build_module(spec)
    params = list(m.parameters())
    every = [p for _, p in m.named_parameters(remove_duplicate=False)]
    buffers = list(m.buffers())
    state = m.state_dict()
    nbytes = lambda ts: sum(t.numel() * t.element_size() for t in ts)  # noqa: E731
    return {
        "params": sum(p.numel() for p in params),
        "param_bytes": nbytes(params),
        "buffer_bytes": nbytes(buffers),
        "_params_counting_shared_twice": sum(p.numel() for p in every),
        "_params_with_buffers": sum(t.numel() for t in params + buffers),
        "_param_bytes_at_4": 4 * sum(p.numel() for p in params),
        "_state_dict_numel": sum(t.numel() for t in state.values()),
        "_buffer_bytes_persistent_only": nbytes(
            [b for name, b in m.named_buffers() if name in state]),
        "_buffer_bytes_at_4": 4 * sum(b.numel() for b in buffers),
    }


def expected_shape(spec, input_shape):
    """Output shape from the layer formulas (the families' forward is in probes.py)."""
    shape = list(input_shape)
    if spec["kind"] == "lm":
        return shape + [spec["vocab"]]
    if spec["kind"] == "mlp":
        return shape[:-1] + [spec["widths"][-1]]
    n, _, h, w = shape
    k = spec["kernel"]
    for _ in spec["channels"][1:]:
        h = (h + 2 * (k // 2) - k) // 2 + 1
        w = (w + 2 * (k // 2) - k) // 2 + 1
    return [n, spec["channels"][-1], h, w]


# ---------------------------------------------------------------- checks

def check_built(obs, where):
    built = obs["built"]
    assert built, f"{where}：没有调用 build()——模型要由传入的 build() 构建"
    for place in built:
        assert place != "real", (
            f"{where}：build() 在 CPU 上分配了真实的权重：要在 meta 设备上"
            f"（with torch.device(\"meta\")）或 FakeTensorMode 里调用 build()")
        assert place in ("meta", "fake", "fake+meta"), f"{where}：build() 的结果是 {place}"


def check_estimate(obs, spec, where):
    check_built(obs, where)
    assert obs["result"] is not None, f"{where}：estimate 应返回 dict，实际返回了 {obs['type']}"
    want = expected_estimate(spec)
    got = obs["result"]
    for key in ("params", "param_bytes", "buffer_bytes"):
        assert key in got, f"{where}：返回的 dict 缺少键 \"{key}\"（应有 params、param_bytes、buffer_bytes）"
        value = got[key]
        assert type(value) is int, f"{where}：{key} 应是 int，实际是 {value['type']}（{value['repr']}）"
    hints = {
        "params": [("_params_counting_shared_twice", "共享（tied）的权重只能算一次"),
                   ("_params_with_buffers", "buffer 不是参数，不要算进 params"),
                   ("_state_dict_numel", "state_dict 会把共享的权重各列一次、还含有 buffer；要数 parameters()")],
        "param_bytes": [("_param_bytes_at_4", "字节数要按每个参数自己的 dtype 算（numel × element_size）")],
        "buffer_bytes": [("_buffer_bytes_persistent_only",
                          "non-persistent 的 buffer（不在 state_dict 里）也占内存，要算进去"),
                         ("_buffer_bytes_at_4", "字节数要按每个 buffer 自己的 dtype 算（numel × element_size）")],
    }
    for key in ("params", "param_bytes", "buffer_bytes"):
        if got[key] == want[key]:
            continue
        hint = next((text for alt, text in hints[key] if got[key] == want[alt]), "")
        raise AssertionError(f"{where}：{key} 是 {got[key]}，应为 {want[key]}" + (f"（{hint}）" if hint else ""))


def check_shape(obs, spec, input_shape, where):
    check_built(obs, where)
    assert obs["result"] is not None, (
        f"{where}：output_shape 应返回由 int 组成的 tuple（torch.Size 也可以），实际返回了 {obs['type']}：{obs['repr']}")
    want = expected_shape(spec, input_shape)
    assert obs["result"] == want, f"{where}：输出形状是 {tuple(obs['result'])}，应为 {tuple(want)}"


@pytest.fixture(scope="session")
def ex():
    """The helpers above, for the tests: ex.lm(...), ex.check_estimate(obs, spec, where), ..."""
    return types.SimpleNamespace(
        lm=lm, mlp=mlp, convnet=convnet, REAL_SIZE_BF16=REAL_SIZE_BF16, REAL_SIZE_F32_TIED=REAL_SIZE_F32_TIED,
        expected_estimate=expected_estimate, expected_shape=expected_shape,
        check_estimate=check_estimate, check_shape=check_shape)
