"""Fixtures for exercise 105 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: the expected
dispatch keys (the same described tensor built here with probes.make_tensor, the problem's own
code, and given to torch._C._dispatch_keys), seeded inputs for scaled_dot and its float64
reference with a tolerance scaled to the size of the products.
"""

import importlib.util
import types
from pathlib import Path

import pytest
import torch


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
    inner = text[text.index("(") + 1:text.rindex(")")]
    return [name.strip() for name in inner.split(",") if name.strip()]


def expected_keys(desc, where="plain"):
    return PROBES.keys_seen(desc, lambda t: _printed_names(torch._C._dispatch_keys(t)), where)


def check_keys(obs, desc, where, label):
    want = expected_keys(desc, where)
    got = obs["names"]
    assert got is not None, (
        f"{label}：dispatch_keys 应返回由 str 组成的 list，实际返回了 {obs['type']}：{obs.get('repr', '')}")
    if got == want:
        return
    if got == want[::-1]:
        raise AssertionError(f"{label}：顺序反了。应按 torch 打印 DispatchKeySet 的顺序：{want}")
    if sorted(got) == sorted(want):
        raise AssertionError(f"{label}：键对了，顺序不对。应按 torch 打印 DispatchKeySet 的顺序：{want}，实际 {got}")
    raise AssertionError(f"{label}：分发键应为 {want}，实际 {got}")


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
    and |out - ref| <= atol + rtol * |scale| * sum(|a_i * b_i|) elementwise, ref in float64."""

    def check(obs, a, b, scale, dtype, label):
        assert obs["is_tensor"], f"{label}：scaled_dot 应返回一个张量，实际返回了 {obs['type']}"
        want_shape = list(a.shape[:-1])
        assert obs["shape"] == want_shape, f"{label}：输出形状是 {obs['shape']}，应为 {want_shape}"
        assert obs["dtype"] == str(dtype), f"{label}：输出 dtype 是 {obs['dtype']}，应为 {dtype}"
        prod = a.double() * b.double()
        ref = prod.sum(-1) * scale
        bound = prod.abs().sum(-1) * abs(scale)
        rtol, atol = tol(dtype)
        diff = (obs["out"].double() - ref).abs()
        ok = bool(torch.all(diff <= atol + rtol * bound)) and not bool(torch.isnan(obs["out"]).any())
        worst = float((diff / (atol + rtol * bound)).max()) if diff.numel() else 0.0
        assert ok, f"{label}：数值不对，应为 (a * b).sum(-1) * scale（最大误差是容差的 {worst:.3g} 倍）"
        assert not obs.get("inputs_changed"), f"{label}：scaled_dot 修改了输入 a 或 b（它的 schema 声明不修改任何输入）"

    return check


OPCHECK_HINTS = {
    "test_schema": "实现修改了输入，或输出与输入共享内存",
    "test_autograd_registration": "autograd 注册有问题",
    "test_faketensor": "fake 实现与真实实现给出的形状/dtype/设备不一致，或 fake 实现读了数据",
    "test_aot_dispatch_dynamic": "在 AOTAutograd（torch.compile 的图）里跑不通",
}


def check_opcheck(result, label):
    for name, status in result.items():
        assert status == "SUCCESS", f"{label}：opcheck 的 {name} 失败（{OPCHECK_HINTS.get(name, '')}）：{status}"


@pytest.fixture(scope="session")
def ex():
    """The helpers above, for the tests."""
    return types.SimpleNamespace(
        expected_keys=expected_keys, check_keys=check_keys, EXPECTED_SCHEMA=EXPECTED_SCHEMA,
        make_pair=make_pair, check_opcheck=check_opcheck)
