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

from judge.checker.errors import LearnerError
from judge.report.feedback import msg


def _load_probes():
    spec = importlib.util.spec_from_file_location("_ex102_probes", Path(__file__).with_name("probes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBES = _load_probes()


# ---------------------------------------------------------------- specs


# Every test model is too large to build for real: the worker's memory limit is 1.5 GiB (problem.toml), and a
# model whose weights and buffers take more than REAL_BYTES ends the judgement with memory_limit_exceeded the
# moment build() allocates them. That is how "no real weights" is judged: the sandbox measures it from outside
# the process, where no code under test can rewrite the record. The structure each test is about (tied weights,
# a module registered twice, every kind of buffer) stays; one width grows until the model is that large.
REAL_BYTES = 2 * 2**30


def _real_bytes(spec):
    with torch.device("meta"):
        m = PROBES.build_module(spec)
    return sum(t.numel() * t.element_size() for t in [*m.parameters(), *m.buffers()])


def _too_large_to_build(spec, widen):
    """spec with the width `widen(spec)` names doubled until the model's real weights exceed REAL_BYTES."""
    while _real_bytes(spec) <= REAL_BYTES:
        spec = widen(spec)
    return spec


def lm(vocab, dim, heads, ffn, layers, tie, dtype="float32", norm_fp32=False):
    """A language model; its vocabulary widened until it is too large to build for real."""
    spec = {
        "kind": "lm",
        "vocab": vocab,
        "dim": dim,
        "heads": heads,
        "ffn": ffn,
        "layers": layers,
        "tie": tie,
        "dtype": dtype,
        "norm_fp32": norm_fp32,
    }
    return _too_large_to_build(spec, lambda s: {**s, "vocab": 2 * s["vocab"]})


def mlp(widths, bias, repeat=1, dtype="float32"):
    """An MLP; its hidden width (widths[1]) widened until it is too large to build for real."""
    spec = {"kind": "mlp", "widths": list(widths), "bias": bias, "repeat": repeat, "dtype": dtype}
    return _too_large_to_build(spec, lambda s: {**s, "widths": [s["widths"][0], 2 * s["widths"][1], *s["widths"][2:]]})


def convnet(channels, kernel, dtype="float32"):
    """A conv net; its first stage's channels (channels[1]) widened until it is too large to build for real."""
    spec = {"kind": "convnet", "channels": list(channels), "kernel": kernel, "dtype": dtype}
    return _too_large_to_build(
        spec, lambda s: {**s, "channels": [s["channels"][0], 2 * s["channels"][1], *s["channels"][2:]]}
    )


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
        "_buffer_bytes_persistent_only": nbytes([b for name, b in m.named_buffers() if name in state]),
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
# Each fails with one message in both languages. ``where`` is a (zh, en) pair naming the model
# (and input) that was checked.


def fail(where, zh, en):
    raise AssertionError(msg(f"{where[0]}：{zh}", f"{where[1]}: {en}"))


# Usual wrong answers, recognised by value: (key, alternative from expected_estimate, zh, en)
ESTIMATE_HINTS = [
    ("params", "_params_counting_shared_twice", "共享（tied）的权重只能算一次", "a shared (tied) weight counts once"),
    (
        "params",
        "_params_with_buffers",
        "buffer 不是参数，不要算进 params",
        "buffers are not parameters: leave them out of params",
    ),
    (
        "params",
        "_state_dict_numel",
        "state_dict 会把共享的权重各列一次、还含有 buffer；要数 parameters()",
        "state_dict lists a shared weight once per name and holds buffers too: count parameters()",
    ),
    (
        "param_bytes",
        "_param_bytes_at_4",
        "字节数要按每个参数自己的 dtype 算（numel × element_size）",
        "count bytes with each parameter's own dtype (numel × element_size)",
    ),
    (
        "buffer_bytes",
        "_buffer_bytes_persistent_only",
        "non-persistent 的 buffer（不在 state_dict 里）也占内存，要算进去",
        "non-persistent buffers (absent from state_dict) take memory too: count them",
    ),
    (
        "buffer_bytes",
        "_buffer_bytes_at_4",
        "字节数要按每个 buffer 自己的 dtype 算（numel × element_size）",
        "count bytes with each buffer's own dtype (numel × element_size)",
    ),
]
KEYS = ("params", "param_bytes", "buffer_bytes")


def check_estimate(obs, spec, where):
    if obs["result"] is None:
        fail(
            where, f"estimate 应返回 dict，实际返回了 {obs['type']}", f"estimate must return a dict, not {obs['type']}"
        )
    want, got = expected_estimate(spec), obs["result"]
    for key in KEYS:
        if key not in got:
            fail(
                where,
                f'返回的 dict 缺少键 "{key}"（应有 params、param_bytes、buffer_bytes）',
                f'the dict returned lacks the key "{key}" (it needs params, param_bytes and buffer_bytes)',
            )
        value = got[key]
        if type(value) is not int:
            fail(
                where,
                f"{key} 应是 int，实际是 {value['type']}（{value['repr']}）",
                f"{key} must be an int, not {value['type']} ({value['repr']})",
            )
    for key in KEYS:
        if got[key] == want[key]:
            continue
        hint = next(((zh, en) for k, alt, zh, en in ESTIMATE_HINTS if k == key and got[key] == want[alt]), None)
        zh, en = f"{key} 是 {got[key]}，应为 {want[key]}", f"{key} is {got[key]}; it should be {want[key]}"
        fail(where, zh + (f"（{hint[0]}）" if hint else ""), en + (f" ({hint[1]})" if hint else ""))


def check_shape(obs, spec, input_shape, where):
    if obs["result"] is None:
        fail(
            where,
            f"output_shape 应返回由 int 组成的 tuple（torch.Size 也可以），实际返回了 {obs['type']}：{obs['repr']}",
            f"output_shape must return a tuple of ints (a torch.Size will do), not {obs['type']}: {obs['repr']}",
        )
    want = expected_shape(spec, input_shape)
    if obs["result"] != want:
        fail(
            where,
            f"输出形状是 {tuple(obs['result'])}，应为 {tuple(want)}",
            f"the output shape is {tuple(obs['result'])}; it should be {tuple(want)}",
        )


# torch's advice here (allow_non_fake_inputs) hides the lesson: a FakeTensorMode only accepts tensors it created.
MIXED_FAKE = ("convert all Tensors to FakeTensors", "allow_non_fake_inputs")


@pytest.fixture(scope="session")
def output_shape(probe, remote):
    """output_shape(*args, hint=...): the output_shape probe; a model built outside FakeTensorMode
    but run on the mode's input fails with the statement's lesson instead of torch's advice."""

    def call(*args, hint):
        try:
            return remote.call("output_shape", *args)
        except LearnerError as exc:
            if any(text in exc.message for text in MIXED_FAKE):
                raise AssertionError(
                    msg(
                        "FakeTensorMode 只接受它自己创建的张量：要么在 FakeTensorMode 里同时建模型和输入，要么模型和输入都放在 "
                        "meta 设备上，两种方式不要混用（不必照 torch 的提示打开 allow_non_fake_inputs）",
                        "FakeTensorMode accepts only tensors it created itself: either build both the model and the "
                        "input inside FakeTensorMode, or put both on the meta device, not a mix of the two (no need "
                        "for the allow_non_fake_inputs that torch suggests)",
                    )
                ) from None
            # Any other error: run it again through probe() for the usual message (hint, error, line).
            return probe("output_shape", *args, hint=hint)

    return call


@pytest.fixture(scope="session")
def ex():
    """The helpers above, for the tests: ex.lm(...), ex.check_estimate(obs, spec, where), ..."""
    return types.SimpleNamespace(
        lm=lm,
        mlp=mlp,
        convnet=convnet,
        REAL_SIZE_BF16=REAL_SIZE_BF16,
        REAL_SIZE_F32_TIED=REAL_SIZE_F32_TIED,
        expected_estimate=expected_estimate,
        expected_shape=expected_shape,
        check_estimate=check_estimate,
        check_shape=check_shape,
    )
