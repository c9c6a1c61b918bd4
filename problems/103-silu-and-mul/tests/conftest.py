"""Fixtures for exercise 103 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: seeded
inputs, the expected values computed with plain torch math in float64, and tolerances.
"""

import re

import pytest
import torch
import torch.nn.functional as F

from judge.checker import gradchecks
from judge.checker.opchecks import opcheck_results
from judge.report.feedback import compare, guessing, msg


@pytest.fixture(scope="session")
def close(problem):
    """close(actual, expected, dtype) -> None when |a - e| <= atol + rtol * |e| elementwise (float64, the dtype's
    tolerances from problem.toml), else what is wrong (judge.report.feedback.compare: where, by how much, the tolerance)."""

    def check(actual, expected, dtype):
        t = problem.tolerances[str(dtype).removeprefix("torch.")]
        return compare(actual, expected, rtol=float(t.rtol), atol=float(t.atol))

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
# Each fails with msg(zh, en): what is wrong, and where. `where` is a (zh, en) pair naming the call.


@pytest.fixture(scope="session")
def check_out(close):
    """check_out(out, x, where): dtype, shape and values of one output."""

    def check(out, x, where):
        wz, we = where
        assert out is not None, msg(f"{wz}：silu_and_mul 没有返回张量", f"{we}: silu_and_mul returned no tensor")
        want, got = _out_shape(list(x.shape)), list(out.shape)
        assert got == want, msg(
            f"{wz}：输出形状是 {got}，应为 {want}（最后一维减半）",
            f"{we}: the output has shape {got}, expected {want} (the last dimension halved)",
        )
        assert out.dtype == x.dtype, msg(
            f"{wz}：输出 dtype 是 {out.dtype}，应与输入相同（{x.dtype}）",
            f"{we}: the output dtype is {out.dtype}, expected the input's ({x.dtype})",
        )
        wrong = close(out, expected(x), x.dtype)
        assert wrong is None, msg(
            f"{wz}：输出{wrong.zh}，应为 silu(x[..., :d]) * x[..., d:]",
            f"{we}: output: {wrong.en}; expected silu(x[..., :d]) * x[..., d:]",
        )

    return check


@pytest.fixture(scope="session")
def check_eager(check_out):
    """check_eager(obs, x): the output of an eager call, x left alone, and a new tensor returned."""

    def check(obs, x):
        check_out(obs["out"], x, ("eager 调用", "eager call"))
        assert (obs["x_after"] is None or torch.equal(obs["x_after"], x)) and not obs["written"], msg(
            "silu_and_mul 修改了输入 x（哪怕又把值改了回去）：它只能读 x，结果写进新张量",
            "silu_and_mul modified its input x (even if it put the values back): it may only read x and must write "
            "the result into a new tensor",
        )
        meta = obs["meta"]
        assert meta["contiguous"] and meta["storage_offset"] == 0, msg(
            f"输出不是 storage offset 为 0 的连续张量（步长 {meta['stride']}，offset {meta['storage_offset']}）："
            "题目要求连续的新张量，计算最后得到视图时要返回拷贝（带步长的视图用 .contiguous()，有偏移的用 .clone()）",
            f"the output is not a contiguous tensor with storage offset 0 (strides {meta['stride']}, offset "
            f"{meta['storage_offset']}): the statement asks for a contiguous new tensor, so return a copy when the "
            "computation ends in a view (.contiguous() of a strided view, .clone() of one at an offset)",
        )
        assert not obs["shares_input_memory"], msg(
            "silu_and_mul 的输出与输入共享内存：输出必须是新张量（例如切片的视图要 .clone()）",
            "the output of silu_and_mul shares memory with its input: it must be a new tensor "
            "(.clone() a view of x, for example)",
        )

    return check


@pytest.fixture(scope="session")
def check_grad(close):
    """check_grad(obs, x, grad_out, where): a gradient observation against autograd in float64."""

    def check(obs, x, grad_out, where):
        wz, we = where
        assert obs["out_requires_grad"], msg(
            f"{wz}：输出不需要梯度——反向要用 torch.library.register_autograd 注册在算子上",
            f"{we}: the output does not require grad: register the backward on the operator "
            "with torch.library.register_autograd",
        )
        assert not obs.get("written"), msg(
            f"{wz}：前向 + 反向原地写了 x（哪怕又把值改了回去）：算子（包括 setup_context 和反向）不能修改输入",
            f"{we}: the forward and backward wrote x in place (even if they put the values back): the operator "
            "(setup_context and the backward included) must not modify its input",
        )
        got = obs["x_grad"]
        assert got is not None, msg(f"{wz}：x 没有得到梯度", f"{we}: x received no gradient")
        assert list(got.shape) == list(x.shape), msg(
            f"{wz}：x 的梯度形状是 {list(got.shape)}，应与 x 相同（{list(x.shape)}）",
            f"{we}: the gradient of x has shape {list(got.shape)}, expected the shape of x ({list(x.shape)})",
        )
        wrong = close(got, expected_grad(x, grad_out), x.dtype)
        assert wrong is None, msg(
            f"{wz}：x 的梯度{wrong.zh}，d silu(a) / da = s + a * s * (1 - s)",
            f"{we}: the gradient of x: {wrong.en}; d silu(a) / da = s + a * s * (1 - s)",
        )

    return check


OPCHECK_HINTS = {
    "test_schema": (
        "实现修改了输入，或输出与输入共享内存，与 schema 不一致",
        "the implementation modified its input or returned memory shared with it, which the schema does not declare",
    ),
    "test_autograd_registration": (
        "反向要用 register_autograd 注册在算子上",
        "register the backward on the operator with register_autograd",
    ),
    "test_faketensor": (
        "fake 实现与真实实现的输出不一致，或 fake 实现读了数据",
        "the fake and the real implementation disagree, or the fake read data",
    ),
    "test_aot_dispatch_dynamic": (
        "在 AOTAutograd（符号形状下的前向/反向图）里跑不通",
        "it fails under AOTAutograd (forward and backward graphs with symbolic shapes)",
    ),
}
# opcheck's test_faketensor names the operator in a long preamble, then what differs (real first, fake second)
_METADATA_PREAMBLE = re.compile(
    r"^MetadataMismatchError: When comparing the output of \S+ on FakeTensor and "
    r"concrete Tensors, found mismatched tensor metadata: "
)
_METADATA = {  # the start of torch's detail, lower-cased -> what it means here
    "shapes": ("fake 实现给出的输出形状与真实输出不同", "the fake's output shape differs from the real output's"),
    "dtypes": ("fake 实现给出的输出 dtype 与真实输出不同", "the fake's output dtype differs from the real output's"),
    "devices": ("fake 实现给出的输出设备与真实输出不同", "the fake's output device differs from the real output's"),
    "stride": (
        "fake 实现的输出与真实输出的步长不同：两者都应是连续张量（用 x.new_empty(...)，不要返回 narrow 或切片得到的视图）",
        "the fake's output has other strides than the real output: both must be contiguous "
        "(use x.new_empty(...), not a narrowed or sliced view)",
    ),
    "storage offset": (
        "fake 实现的输出与真实输出的 storage offset 不同：两者都应从 offset 0 开始（视图要 .clone()）",
        "the fake's output has another storage offset than the real output: both must start at "
        "offset 0 (.clone() a view)",
    ),
}


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result, x): each of opcheck's tests, decided here (judge.checker.opchecks) from what the
    probe observed on x, passes."""
    return _check_opcheck


def _check_opcheck(result, x):
    for name, status in opcheck_results(result["data"], result["schema"], (x,), grad=(0,)).items():
        assert status == "SUCCESS", msg(*_opcheck_failure(name, status))


@pytest.fixture(scope="session")
def check_gradcheck(hints, out_shape):
    """check_gradcheck(probe, x): gradcheck decided here (judge.checker.gradchecks): x left alone, and the
    backward agrees with the forward's finite differences within gradcheck's tolerances."""

    def check(probe, x):
        v, directions, points = gradchecks.plan({"x": x}, out_shape(list(x.shape)), 7)
        obs = probe("run_gradcheck", x, v, points, hint=hints["gradcheck"])
        assert obs["out_requires_grad"], msg(
            "gradcheck：输出不需要梯度：反向要用 register_autograd 注册在算子上",
            "gradcheck: the output does not require grad: register the backward on the operator with register_autograd",
        )
        assert (obs["x_after"] is None or torch.equal(obs["x_after"], x)) and not obs["written"], msg(
            "gradcheck：前向 + 反向改动了 x：算子（包括 setup_context 和反向）不能修改输入",
            "gradcheck: the forward and backward changed x: the operator (setup_context and the backward included) "
            "must not modify its input",
        )
        wrong = gradchecks.not_reentrant({"x": obs["x_grad"]}, {"x": obs["x_grad_again"]})
        wrong = wrong or gradchecks.disagreement(v, directions, {"x": obs["x_grad"]}, obs["forward"])
        assert wrong is None, msg(f"gradcheck 失败：{wrong[0]}", f"gradcheck failed: {wrong[1]}")

    return check


def _opcheck_failure(name, status):
    """(zh, en): which opcheck test failed, why in the chapter's terms, then torch's own words."""
    detail = _METADATA_PREAMBLE.sub("", status).strip()
    if detail != status:
        key = detail.lower().removeprefix("mismatched ")
        for start, (zh, en) in _METADATA.items():
            if key.startswith(start):
                return f"opcheck 的 {name} 失败：{zh}（{detail}）", f"opcheck's {name} failed: {en} ({detail})"
    zh, en = OPCHECK_HINTS.get(name, ("", ""))
    return f"opcheck 的 {name} 失败（{zh}）：{status}", f"opcheck's {name} failed ({en}): {status}"


@pytest.fixture(scope="session")
def check_meta():
    """check_meta(obs, shape, dtype, where): a described meta / fake output."""
    return _check_meta


def _check_meta(obs, shape, dtype, where):
    wz, we = where
    want = _out_shape(list(shape))
    assert obs["is_tensor"], msg(
        f"{wz}：silu_and_mul 应返回一个张量，得到 {obs['type']}",
        f"{we}: silu_and_mul should return a tensor, got {obs['type']}",
    )
    assert obs["shape"] == want, msg(
        f"{wz}：输出形状是 {obs['shape']}，应为 {want}（最后一维减半）",
        f"{we}: the output has shape {obs['shape']}, expected {want} (the last dimension halved)",
    )
    assert obs["dtype"] == str(dtype), msg(
        f"{wz}：输出 dtype 是 {obs['dtype']}，应为 {dtype}",
        f"{we}: the output dtype is {obs['dtype']}, expected {dtype}",
    )


NOT_FOUND = msg(
    '没有找到 torch.ops.ex103.silu_and_mul：custom_op 的名字应为 "ex103::silu_and_mul"',
    'torch.ops.ex103.silu_and_mul not found: the custom_op must be named "ex103::silu_and_mul"',
)


@pytest.fixture(scope="session")
def check_schema():
    """check_schema(s): ex103::silu_and_mul(Tensor x) -> Tensor, nothing written, no alias."""
    return _check_schema


def _check_schema(s):
    assert s is not None, NOT_FOUND
    written = [a["name"] for a in s["arguments"] if a["is_write"]]
    assert not written, msg(
        f"silu_and_mul 不修改输入，schema 却声明修改了 {written}（mutates_args 应为空元组）",
        f"silu_and_mul does not modify its input, yet the schema declares {written} as written "
        "(mutates_args should be the empty tuple)",
    )
    args = [(a["name"], a["type"]) for a in s["arguments"]]
    assert args == [("x", "Tensor")], msg(
        f"silu_and_mul 的参数应为 (Tensor x)，schema 是 {s['text']}",
        f"silu_and_mul should take (Tensor x); the schema is {s['text']}",
    )
    assert len(s["returns"]) == 1 and s["returns"][0]["type"] == "Tensor", msg(
        f"silu_and_mul 应返回一个 Tensor，schema 是 {s['text']}",
        f"silu_and_mul should return one Tensor; the schema is {s['text']}",
    )
    assert not s["returns"][0]["has_alias"], msg(
        "silu_and_mul 的输出应是新张量，schema 却标注它与输入别名",
        "the output of silu_and_mul should be a new tensor, yet the schema marks it as an alias of the input",
    )


# ---------------------------------------------------------------- probe hints (what was being done)

HINTS = {
    "op_exists": msg("查找算子时出错", "looking up the operator failed"),
    "schema": msg("读取 schema 时出错", "reading the schema failed"),
    "eager": msg("eager 调用 silu_and_mul 时出错", "calling silu_and_mul eagerly failed"),
    "meta": guessing(
        "在 meta 设备上调用 silu_and_mul 出错",
        "calling silu_and_mul on meta tensors failed",
    ),
    "fake": guessing(
        "在 FakeTensorMode 下调用 silu_and_mul 出错",
        "calling silu_and_mul under FakeTensorMode failed",
    ),
    "backward": msg(
        "对 silu_and_mul 做反向时出错（反向要用 register_autograd 注册在算子上，并为 x 返回一个梯度）",
        "the backward of silu_and_mul failed (register it on the operator with register_autograd, "
        "returning one gradient, for x)",
    ),
    "gradcheck": msg(
        "gradcheck 对 silu_and_mul 做反向时出错", "gradcheck failed while running the backward of silu_and_mul"
    ),
    "opcheck": msg("opcheck 出错", "opcheck failed"),
    "compiled": msg(
        'torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) 下调用 silu_and_mul 出错',
        'calling silu_and_mul under torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) failed',
    ),
    "compiled_backward": msg(
        'torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) 下做前向和反向时出错'
        "（需要 fake 实现，反向要用 register_autograd 注册）",
        'forward and backward under torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) failed '
        "(it needs the fake implementation, and the backward registered with register_autograd)",
    ),
}


@pytest.fixture(scope="session")
def hints():
    """hints[probe name]: the bilingual hint a probe call fails with when the learner's code raises."""
    return HINTS


def check_recompiles(graphs, n_shapes):
    """One graph for n_shapes 2-D shapes, or the fake turned a symbolic size into an int."""
    assert graphs == 1, msg(
        f"换了 {n_shapes} 种同为二维的形状，Dynamo 编译了 {graphs} 次（应为 1 次）："
        "fake 实现把符号大小变成了具体的 int（例如 int(x.shape[-1])），每换一个形状就要重新编译",
        f"over {n_shapes} different 2-D shapes Dynamo compiled {graphs} graphs (expected 1): the fake "
        "implementation turned a symbolic size into a concrete int (int(x.shape[-1]), say), so every new "
        "shape recompiles",
    )


@pytest.fixture(scope="session")
def check_compiled(check_out, remote):
    """check_compiled(obs, xs): the outputs of compiled_shapes, and exactly one compiled graph (counted here, from
    what the judge's own backend reported through the channel as Dynamo compiled each: judge.worker.compiled)."""

    def check(obs, xs):
        for x, out in zip(xs, obs["outs"]):
            shape = list(x.shape)
            check_out(out, x, (f"torch.compile 下（输入形状 {shape}）", f"under torch.compile (input shape {shape})"))
        check_recompiles(len(remote.graphs()), len(xs))

    return check


@pytest.fixture(scope="session")
def probe_causes():
    """What the learner's code raised -> the cause, for the traps the statement warns about (the judge's probe
    fixture puts the first match in place of a test's general hint)."""
    reads_data = msg(
        "fake 实现读取了输入的数值（.item()、.tolist() 或对数据的比较）：fake 和 meta 张量没有数据，"
        "输出只能由 x 的形状、dtype 和设备决定",
        "the fake reads the input's values (.item(), .tolist() or a comparison on data): fake and meta tensors have "
        "none, so the output may depend only on x's shape, dtype and device",
    )
    return [
        ("cannot be called on meta tensors", reads_data),
        ("data-dependent expression", reads_data),
    ]
