"""Fixtures for exercise 105 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: the expected
dispatch keys (the same described tensor built here with probes.make_tensor, the problem's own
code, and given to torch._C._dispatch_keys), seeded inputs for scaled_dot and its float64
reference with a tolerance scaled to the size of the products.
"""

import importlib.util
import re
import types
from pathlib import Path

import pytest
import torch

from judge.checker.opchecks import opcheck_results
from judge.report.feedback import compare, guessing, msg


def _load_probes():
    spec = importlib.util.spec_from_file_location("_ex105_probes", Path(__file__).with_name("probes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBES = _load_probes()


# ---------------------------------------------------------------- dispatch keys


def _printed_names(key_set):
    """The key names in the order torch prints a DispatchKeySet: "DispatchKeySet(A, B, C)"."""
    text = str(key_set)
    inner = text[text.index("(") + 1 : text.rindex(")")]
    return [name.strip() for name in inner.split(",") if name.strip()]


def expected_keys(desc, where="plain"):
    return PROBES.keys_seen(desc, lambda t: _printed_names(torch._C._dispatch_keys(t)), where)


def check_keys(obs, desc, where, label):
    """dispatch_keys' answer for the described tensor: torch's names in torch's printed order.
    `label` is a (zh, en) pair naming the tensor."""
    lz, le = label
    want = expected_keys(desc, where)
    got = obs["names"]
    assert got is not None, msg(
        f"{lz}：dispatch_keys 应返回由 str 组成的 list，实际返回了 {obs['type']}：{obs.get('repr', '')}",
        f"{le}: dispatch_keys should return a list of str, but returned a {obs['type']}: {obs.get('repr', '')}",
    )
    assert got != want[::-1] or got == want, msg(
        f"{lz}：顺序反了，应按 torch 打印 DispatchKeySet 的顺序（从设备 kernel 到最外层）：{want}",
        f"{le}: the order is reversed; expected the order in which torch prints the DispatchKeySet "
        f"(from the device kernel outwards): {want}",
    )
    assert sorted(got) != sorted(want) or got == want, msg(
        f"{lz}：键对了，顺序不对，应按 torch 打印 DispatchKeySet 的顺序：{want}，实际 {got}",
        f"{le}: the right keys in the wrong order; expected torch's printed order {want}, got {got}",
    )
    assert got == want, msg(
        f"{lz}：分发键应为 {want}，实际 {got}", f"{le}: expected the dispatch keys {want}, got {got}"
    )


def tensor_label(desc, where="plain"):
    """(zh, en) naming a described tensor in a message."""
    inside = where == "vmap"
    return (
        f"张量 {desc}" + ("（在 torch.func.vmap 里）" if inside else ""),
        f"the tensor {desc}" + (" (inside torch.func.vmap)" if inside else ""),
    )


# ---------------------------------------------------------------- scaled_dot

EXPECTED_SCHEMA = "ex105::scaled_dot(Tensor a, Tensor b, float scale) -> Tensor"


def make_pair(seed, shape, dtype=torch.float32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    a = (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)
    b = torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
    return a, b


@pytest.fixture(scope="session")
def tol(problem):
    def get(dtype):
        t = problem.tolerances[str(dtype).removeprefix("torch.")]
        return float(t.rtol), float(t.atol)

    return get


@pytest.fixture(scope="session")
def check_values(tol):
    """check_values(obs, a, b, scale, dtype, label): obs["out"] has the expected shape and dtype,
    and |out - ref| <= atol + rtol * |scale| * sum(|a_i * b_i|) elementwise, ref in float64.
    `label` is a (zh, en) pair naming the call."""

    def check(obs, a, b, scale, dtype, label):
        lz, le = label
        assert obs["is_tensor"], msg(
            f"{lz}：scaled_dot 应返回一个张量，实际返回了 {obs['type']}",
            f"{le}: scaled_dot should return a tensor, but returned {obs['type']}",
        )
        want_shape = list(a.shape[:-1])
        assert obs["shape"] == want_shape, msg(
            f"{lz}：输出形状是 {obs['shape']}，应为 {want_shape}（最后一维被求和掉）",
            f"{le}: the output has shape {obs['shape']}, expected {want_shape} (the last dimension summed away)",
        )
        assert obs["dtype"] == str(dtype), msg(
            f"{lz}：输出 dtype 是 {obs['dtype']}，应为 {dtype}",
            f"{le}: the output dtype is {obs['dtype']}, expected {dtype}",
        )
        prod = a.double() * b.double()
        ref = prod.sum(-1) * scale
        bound = prod.abs().sum(-1) * abs(scale)
        rtol, atol = tol(dtype)
        wrong = compare(
            obs["out"], ref, rtol=rtol, atol=atol, scale=bound, scale_name=("Σ|a·b|·|scale|", "Σ|a·b|·|scale|")
        )
        assert wrong is None, msg(
            f"{lz}：{wrong.zh}，应为 (a * b).sum(-1) * scale",
            f"{le}: {wrong.en}; expected (a * b).sum(-1) * scale",
        )
        unchanged = all(
            obs.get(key) is None or (obs[key].shape == sent.shape and torch.equal(obs[key], sent))
            for key, sent in (("a_after", a), ("b_after", b))
        )
        assert unchanged, msg(
            f"{lz}：scaled_dot 修改了输入 a 或 b（它的 schema 声明不修改任何输入）",
            f"{le}: scaled_dot modified its input a or b (its schema declares that it modifies none)",
        )

    return check


OPCHECK_HINTS = {
    "test_schema": (
        "实现修改了输入，或输出与输入共享内存",
        "the implementation modified an input or returned memory shared with one",
    ),
    "test_autograd_registration": ("autograd 注册有问题", "the autograd registration is wrong"),
    "test_faketensor": (
        "fake 实现与真实实现的输出不一致，或 fake 实现读了数据",
        "the fake and the real implementation disagree, or the fake read data",
    ),
    "test_aot_dispatch_dynamic": (
        "在 AOTAutograd（torch.compile 的图）里跑不通",
        "it fails under AOTAutograd (the graphs of torch.compile)",
    ),
}
# opcheck's test_faketensor names the operator in a long preamble, then what differs (real first, fake second)
_METADATA_PREAMBLE = re.compile(
    r"^MetadataMismatchError: When comparing the output of \S+ on FakeTensor and "
    r"concrete Tensors, found mismatched tensor metadata: "
)
_METADATA = {  # the start of torch's detail, lower-cased -> what it means here
    "shapes": (
        "fake 实现给出的输出形状与真实输出不同：最后一维被求和掉",
        "the fake's output shape differs from the real output's: the last dimension is summed away",
    ),
    "dtypes": ("fake 实现给出的输出 dtype 与真实输出不同", "the fake's output dtype differs from the real output's"),
    "devices": ("fake 实现给出的输出设备与真实输出不同", "the fake's output device differs from the real output's"),
}


def _opcheck_failure(name, status, label):
    """(zh, en): which opcheck test failed, why in the chapter's terms, then torch's own words."""
    lz, le = label
    detail = _METADATA_PREAMBLE.sub("", status).strip()
    if detail != status:
        key = detail.lower().removeprefix("mismatched ")
        for start, (zh, en) in _METADATA.items():
            if key.startswith(start):
                return (
                    f"{lz}：opcheck 的 {name} 失败：{zh}（{detail}）",
                    f"{le}: opcheck's {name} failed: {en} ({detail})",
                )
    zh, en = OPCHECK_HINTS.get(name, ("", ""))
    return f"{lz}：opcheck 的 {name} 失败（{zh}）：{status}", f"{le}: opcheck's {name} failed ({en}): {status}"


def check_opcheck(result, label, sent):
    """Each of opcheck's tests, decided here (judge.checker.opchecks) from what the probe observed on ``sent``."""
    for name, status in opcheck_results(result["data"], result["schema"], sent).items():
        assert status == "SUCCESS", msg(*_opcheck_failure(name, status, label))


def check_schema(obs):
    assert obs["schema"] is not None, msg(
        '没有找到 torch.ops.ex105.scaled_dot：custom_op 的名字应为 "ex105::scaled_dot"',
        'torch.ops.ex105.scaled_dot not found: the custom_op must be named "ex105::scaled_dot"',
    )
    assert obs["schema"] == EXPECTED_SCHEMA, msg(
        f"schema 应为 {EXPECTED_SCHEMA}，实际是 {obs['schema']}",
        f"the schema should be {EXPECTED_SCHEMA}, but is {obs['schema']}",
    )


def check_autocast_kernel(obs):
    """A kernel at the AutocastCPU key: the rule lives in the dispatcher, not in the implementation."""
    check_schema(obs)
    assert obs["autocast_cpu_kernel"], msg(
        "scaled_dot 在 AutocastCPU 这个分发键上没有 kernel：autocast 规则要注册在 dispatcher 里"
        '（torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)），而不是在实现里'
        "用 torch.is_autocast_enabled() 自己判断：那样 fake 实现和 torch.compile 都看不到这次转换",
        "scaled_dot has no kernel at the AutocastCPU dispatch key: the autocast rule belongs in the dispatcher "
        '(torch.library.register_autocast("ex105::scaled_dot", "cpu", torch.bfloat16)), not in a '
        "torch.is_autocast_enabled() check inside the implementation, which neither the fake implementation "
        "nor torch.compile ever sees",
    )


def check_fake(obs, shape, want, autocast):
    """A fake tensor output: shape, and dtype (bfloat16 under autocast, from the AutocastCPU rule)."""
    lz, le = (
        ("autocast（bf16）下的 fake tensor", "a fake tensor under autocast (bf16)")
        if autocast
        else ("fake tensor", "a fake tensor")
    )
    assert obs["is_tensor"], msg(f"{lz}：scaled_dot 应返回一个张量", f"{le}: scaled_dot should return a tensor")
    assert obs["shape"] == shape, msg(
        f"{lz}：输出形状是 {obs['shape']}，应为 {shape}", f"{le}: the output has shape {obs['shape']}, expected {shape}"
    )
    assert obs["dtype"] == str(want), msg(
        f"{lz}：输出 dtype 是 {obs['dtype']}，应为 {want}"
        + (
            "（torch.compile 追踪时只看得到 fake 实现：转换精度要由 AutocastCPU 层的规则完成，"
            "而不是在实现里判断 autocast）"
            if autocast
            else ""
        ),
        f"{le}: the output dtype is {obs['dtype']}, expected {want}"
        + (
            " (torch.compile traces only the fake implementation: the cast must come from the rule at the "
            "AutocastCPU layer, not from an autocast check inside the implementation)"
            if autocast
            else ""
        ),
    )


def check_meta(obs, shape, dtype):
    """scaled_dot on meta tensors of `shape`: an output on meta, the last dimension reduced away."""
    assert obs["is_tensor"], msg(
        "meta 设备上 scaled_dot 应返回一个张量", "on meta tensors scaled_dot should return a tensor"
    )
    assert obs["device"] == "meta", msg(
        f"meta 输入得到了 {obs['device']} 上的输出：fake 实现要沿用输入的设备",
        f"meta inputs gave an output on {obs['device']}: the fake implementation must use the inputs' device",
    )
    assert obs["shape"] == shape[:-1], msg(
        f"meta 设备上输入 {shape} 的输出形状是 {obs['shape']}，应为 {shape[:-1]}（最后一维被求和掉）",
        f"on meta inputs of shape {shape} the output has shape {obs['shape']}, expected {shape[:-1]} "
        "(the last dimension summed away)",
    )
    assert obs["dtype"] == str(dtype), msg(
        f"meta 设备上输出 dtype 是 {obs['dtype']}，应为 {dtype}",
        f"on meta tensors the output dtype is {obs['dtype']}, expected {dtype}",
    )


def check_autocast_dtype(obs, label, in_dtype, out_dtype):
    """Under autocast (bf16): bfloat16 out for floating inputs other than float64, which stays."""
    lz, le = label
    got = obs.get("dtype")
    if got == str(in_dtype) and in_dtype != out_dtype:
        raise AssertionError(
            msg(
                f"{lz}：输出仍是 {got}，没有转成 bfloat16：要用 torch.library.register_autocast 给 scaled_dot 注册 CPU "
                "的 autocast 规则（AutocastCPU 这一层把输入转成 bfloat16）",
                f"{le}: the output is still {got}, not bfloat16: register a CPU autocast rule for scaled_dot with "
                "torch.library.register_autocast (the AutocastCPU layer casts the inputs to bfloat16)",
            )
        )
    assert got == str(out_dtype), msg(
        f"{lz}：得到了 {got} 的输出，应为 {out_dtype}"
        + (
            "（autocast 规则把 float64 以外的浮点输入转成 bfloat16：register_autocast 的 cast_inputs 应为 torch.bfloat16）"
            if out_dtype == torch.bfloat16
            else "（autocast 不转换 float64 输入）"
        ),
        f"{le}: the output is {got}, expected {out_dtype}"
        + (
            " (the autocast rule casts floating inputs other than float64 to bfloat16: cast_inputs of "
            "register_autocast should be torch.bfloat16)"
            if out_dtype == torch.bfloat16
            else " (autocast leaves float64 inputs alone)"
        ),
    )


HINTS = {
    "dispatch_keys": msg("dispatch_keys(t) 出错", "dispatch_keys(t) failed"),
    "op_schema": msg("读取 ex105::scaled_dot 的 schema 时出错", "reading the schema of ex105::scaled_dot failed"),
    "scaled_dot": msg("调用 scaled_dot 出错", "calling scaled_dot failed"),
    "autocast": msg(
        '在 torch.autocast("cpu", dtype=torch.bfloat16) 下调用 scaled_dot 出错',
        'calling scaled_dot under torch.autocast("cpu", dtype=torch.bfloat16) failed',
    ),
    "meta": guessing(
        "在 meta 设备上调用 scaled_dot 出错",
        "calling scaled_dot on meta tensors failed",
    ),
    "fake": guessing(
        "用 FakeTensorMode 调用 scaled_dot 出错",
        "calling scaled_dot under FakeTensorMode failed",
    ),
    "opcheck": msg("opcheck(scaled_dot) 出错", "opcheck(scaled_dot) failed"),
    "compiled": msg(
        'torch.compile(fullgraph=True, backend="aot_eager") 在 autocast 下编译调用 scaled_dot 的函数时出错',
        "compiling a function that calls scaled_dot with torch.compile(fullgraph=True, "
        'backend="aot_eager") under autocast failed',
    ),
}


def check_compiled(obs, a, b, scale, check_values):
    """torch.compile under autocast (bf16): a bfloat16 output with the right values."""
    label = ("torch.compile + autocast（bf16）下", "under torch.compile and autocast (bf16)")
    assert obs["is_tensor"], msg(
        "torch.compile 下 scaled_dot 应返回一个张量", "under torch.compile scaled_dot should return a tensor"
    )
    assert obs["dtype"] == str(torch.bfloat16), msg(
        f"torch.compile + autocast（bf16）下输出 dtype 是 {obs['dtype']}，应为 torch.bfloat16："
        "编译器只从 fake 实现和 AutocastCPU 上的规则得知输出的 dtype，实现里对 autocast 的判断它看不到",
        f"under torch.compile and autocast (bf16) the output dtype is {obs['dtype']}, expected torch.bfloat16: "
        "the compiler learns the output dtype only from the fake implementation and the rule at AutocastCPU, "
        "never from an autocast check inside the implementation",
    )
    check_values(obs, a, b, scale, torch.bfloat16, label)


@pytest.fixture(scope="session")
def ex():
    """The helpers above, for the tests."""
    return types.SimpleNamespace(
        expected_keys=expected_keys,
        check_keys=check_keys,
        tensor_label=tensor_label,
        EXPECTED_SCHEMA=EXPECTED_SCHEMA,
        make_pair=make_pair,
        check_opcheck=check_opcheck,
        check_schema=check_schema,
        check_autocast_kernel=check_autocast_kernel,
        check_fake=check_fake,
        check_meta=check_meta,
        check_autocast_dtype=check_autocast_dtype,
        check_compiled=check_compiled,
        hints=HINTS,
    )
