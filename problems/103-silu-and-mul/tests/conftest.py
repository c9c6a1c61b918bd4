"""Fixtures for exercise 103 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: seeded
inputs, the expected values computed with plain torch math in float64, and tolerances.
"""

import pytest
import torch
import torch.nn.functional as F


@pytest.fixture(scope="session")
def close(problem):
    """close(actual, expected, dtype) -> (ok, worst): elementwise |a - e| <= atol + rtol * |e|
    with the dtype's tolerances from problem.toml, computed in float64."""

    def check(actual, expected, dtype):
        t = problem.tolerances[str(dtype).removeprefix("torch.")]
        a, e = actual.double(), expected.double()
        if a.shape != e.shape:
            return False, float("inf")
        diff = (a - e).abs()
        ok = bool(torch.all(diff <= t.atol + t.rtol * e.abs())) and not bool(torch.isnan(a).any())
        return ok, (float(diff.max()) if diff.numel() else 0.0)

    return check


# ---------------------------------------------------------------- inputs and expected values

def _make_input(seed, shape, dtype, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


@pytest.fixture(scope="session")
def make_input():
    """make_input(seed, shape, dtype) -> a seeded input (last dimension 2d), values mostly in [-6, 6]."""
    return _make_input


@pytest.fixture(scope="session")
def make_grad():
    """make_grad(seed, shape, dtype) -> a seeded upstream gradient of the output's shape."""

    def build(seed, shape, dtype):
        g = torch.Generator().manual_seed(seed + 7919)
        return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)

    return build


@pytest.fixture(scope="session")
def out_shape():
    """out_shape(shape) -> the output shape: the last dimension halved."""
    return _out_shape


def _out_shape(shape):
    return [*shape[:-1], shape[-1] // 2]


def _formula(x):
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


def expected(x):
    """silu(x[..., :d]) * x[..., d:] in float64."""
    return _formula(x.double())


def expected_grad(x, grad_out):
    """d(sum(out * grad_out)) / dx in float64, by autograd through the plain formula."""
    x = x.double().requires_grad_(True)
    _formula(x).backward(grad_out.double())
    return x.grad.detach()


# ---------------------------------------------------------------- shared checks
# Each fails with a short Chinese message (only its first line is shown to the learner).

@pytest.fixture(scope="session")
def check_out(close):
    """check_out(out, x, where): dtype, shape and values of one output."""

    def check(out, x, where):
        assert out is not None, f"{where}：silu_and_mul 没有返回张量"
        want = _out_shape(list(x.shape))
        assert list(out.shape) == want, (
            f"{where}：输出形状是 {list(out.shape)}，应为 {want}（最后一维减半）")
        assert out.dtype == x.dtype, f"{where}：输出 dtype 是 {out.dtype}，应与输入相同（{x.dtype}）"
        ok, worst = close(out, expected(x), x.dtype)
        assert ok, f"{where}：输出数值不对（最大误差 {worst:.3g}），应为 silu(x[..., :d]) * x[..., d:]"

    return check


@pytest.fixture(scope="session")
def check_grad(close):
    """check_grad(obs, x, grad_out, where): a gradient observation against autograd in float64."""

    def check(obs, x, grad_out, where):
        assert obs["out_requires_grad"], (
            f"{where}：输出不需要梯度——反向要用 torch.library.register_autograd 注册在算子上")
        got = obs["x_grad"]
        assert got is not None, f"{where}：x 没有得到梯度"
        assert list(got.shape) == list(x.shape), (
            f"{where}：x 的梯度形状是 {list(got.shape)}，应与 x 相同（{list(x.shape)}）")
        ok, worst = close(got, expected_grad(x, grad_out), x.dtype)
        assert ok, f"{where}：x 的梯度不对（最大误差 {worst:.3g}）"

    return check


OPCHECK_HINTS = {
    "test_schema": "实现修改了输入或输出与输入共享内存，与 schema 不一致",
    "test_autograd_registration": "autograd 注册有问题（反向要用 register_autograd）",
    "test_faketensor": "fake 实现给出的形状/dtype/设备/步长/storage offset 与真实实现不一致，或 fake 实现读了数据；"
                       "两者的输出都应是 storage offset 为 0 的连续张量",
    "test_aot_dispatch_dynamic": "在 AOTAutograd（符号形状下的前向/反向图）里跑不通",
}


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result): every opcheck test reports SUCCESS."""
    return _check_opcheck


def _check_opcheck(result):
    for name, status in result.items():
        assert status == "SUCCESS", (
            f"opcheck 的 {name} 失败（{OPCHECK_HINTS.get(name, '')}）：{status}")


@pytest.fixture(scope="session")
def check_meta():
    """check_meta(obs, shape, dtype, where): a described meta / fake output."""
    return _check_meta


def _check_meta(obs, shape, dtype, where):
    want = _out_shape(list(shape))
    assert obs["is_tensor"], f"{where}：silu_and_mul 应返回一个张量，得到 {obs['type']}"
    assert obs["shape"] == want, f"{where}：输出形状是 {obs['shape']}，应为 {want}（最后一维减半）"
    assert obs["dtype"] == str(dtype), f"{where}：输出 dtype 是 {obs['dtype']}，应为 {dtype}"


@pytest.fixture(scope="session")
def check_schema():
    """check_schema(s): ex103::silu_and_mul(Tensor x) -> Tensor, nothing written, no alias."""
    return _check_schema


def _check_schema(s):
    assert s is not None, "没有找到 torch.ops.ex103.silu_and_mul：custom_op 的名字应为 \"ex103::silu_and_mul\""
    written = [a["name"] for a in s["arguments"] if a["is_write"]]
    assert not written, (
        f"silu_and_mul 不修改输入，schema 却声明修改了 {written}（mutates_args 应为空元组）")
    args = [(a["name"], a["type"]) for a in s["arguments"]]
    assert args == [("x", "Tensor")], f"silu_and_mul 的参数应为 (Tensor x)，schema 是 {s['text']}"
    assert len(s["returns"]) == 1 and s["returns"][0]["type"] == "Tensor", (
        f"silu_and_mul 应返回一个 Tensor，schema 是 {s['text']}")
    assert not s["returns"][0]["has_alias"], "silu_and_mul 的输出应是新张量，schema 却标注它与输入别名"
