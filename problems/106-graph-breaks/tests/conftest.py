"""Fixtures for exercise 106 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: seeded
inputs, the expected values (the tanh formula in float64), tolerances and the shared checks, each
failing with a message in both languages.
"""

import math

import pytest
import torch

from judge.checker.opchecks import opcheck_results
from judge.report.feedback import compare, msg

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16


def gelu_tanh(x):
    """The tanh approximation of gelu, in float64."""
    x = x.double()
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def mlp_expected(x, w1, w2):
    """gelu(x @ w1) @ w2 in float64, and the sum of absolute terms of the last product (its scale)."""
    g = gelu_tanh(x.double() @ w1.double())
    return g @ w2.double(), g.abs() @ w2.double().abs()


def _make(seed, shape, dtype, scale):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


@pytest.fixture(scope="session")
def make_input():
    """make_input(seed, shape, dtype, scale=2.0) -> a seeded input, values mostly in [-6, 6]."""
    return lambda seed, shape, dtype, scale=2.0: _make(seed, shape, dtype, scale)


@pytest.fixture(scope="session")
def make_mlp():
    """make_mlp(seed, rows, d, hidden, dtype) -> (x [rows, d], w1 [d, hidden], w2 [hidden, d])."""

    def build(seed, rows, d, hidden, dtype):
        return (
            _make(seed, (rows, d), dtype, 1.0),
            _make(seed + 1, (d, hidden), dtype, d**-0.5),
            _make(seed + 2, (hidden, d), dtype, hidden**-0.5),
        )

    return build


@pytest.fixture(scope="session")
def within(problem):
    """within(actual, expected, scale, dtype, scale_name) -> None when actual has dtype and |a - e| <= atol + rtol *
    scale elementwise, else what is wrong (judge.report.feedback.compare: where, by how much, the tolerance)."""

    def check(actual, expected, scale, dtype, scale_name=("|应为|", "|expected|")):
        t = problem.tolerances[str(dtype).removeprefix("torch.")]
        rtol, atol = float(t.rtol), float(t.atol)
        return compare(actual, expected, rtol=rtol, atol=atol, dtype=dtype, scale=scale, scale_name=scale_name)

    return check


# ---------------------------------------------------------------- shared checks


@pytest.fixture(scope="session")
def check_gelu(within):
    """check_gelu(obs, x): one eager call of the operator (an `eager` probe observation)."""

    def check(obs, x):
        out = obs["out"]
        assert out is not None, msg(
            f"ex106::gelu 没有返回张量（返回了 {obs['type']}）",
            f"ex106::gelu returned no tensor (it returned {obs['type']})",
        )
        assert list(out.shape) == list(x.shape), msg(
            f"输出形状是 {list(out.shape)}，应与输入相同（{list(x.shape)}）",
            f"the output has shape {list(out.shape)}; it must match the input's ({list(x.shape)})",
        )
        assert out.dtype == x.dtype, msg(
            f"输出 dtype 是 {out.dtype}，应与输入相同（{x.dtype}）",
            f"the output's dtype is {out.dtype}; it must match the input's ({x.dtype})",
        )
        expected = gelu_tanh(x)
        wrong = within(out, expected, expected.abs(), x.dtype)
        assert wrong is None, msg(
            f"ex106::gelu 的{wrong.zh}，应为 opaque_gelu 计算的 tanh 近似 gelu",
            f"ex106::gelu: {wrong.en}; it must be the tanh-approximated gelu that opaque_gelu computes",
        )
        assert (obs["x_after"] is None or torch.equal(obs["x_after"], x)) and not obs.get("written"), msg(
            "ex106::gelu 修改了输入 x（哪怕又把值改了回去）：它只能读 x",
            "ex106::gelu changed its input x (even if it put the values back): it may only read x",
        )
        assert not obs["shares_input_memory"] and obs["contiguous"], msg(
            "ex106::gelu 的输出应是与输入不共享内存的新的连续张量",
            "ex106::gelu must return a new contiguous tensor that shares no memory with its input",
        )

    return check


@pytest.fixture(scope="session")
def check_mlp(within):
    """check_mlp(out, x, w1, w2, where_zh, where_en): mlp's output against gelu(x @ w1) @ w2."""

    def check(out, x, w1, w2, where_zh, where_en):
        expected, scale = mlp_expected(x, w1, w2)
        assert out is not None, msg(f"{where_zh}：mlp 没有返回张量", f"{where_en}: mlp returned no tensor")
        wrong = within(out, expected, scale, x.dtype, ("|gelu(x @ w1)| @ |w2|", "|gelu(x @ w1)| @ |w2|"))
        assert wrong is None, msg(
            f"{where_zh}：mlp 的结果{wrong.zh}，应为 gelu(x @ w1) @ w2，与 x 同 dtype",
            f"{where_en}: mlp: {wrong.en}; it must be gelu(x @ w1) @ w2, in x's dtype",
        )

    return check


@pytest.fixture(scope="session")
def check_dynamic(check_mlp, remote):
    """check_dynamic(obs, xs, w1, w2): a `compiled` observation with dynamic=True: values, and one graph (counted
    here, from what the judge's own backend reported through the channel: judge.worker.compiled)."""

    def check(obs, xs, w1, w2):
        for x, out in zip(xs, obs["outs"]):
            check_mlp(
                out,
                x,
                w1,
                w2,
                f"torch.compile(dynamic=True) 下（x 形状 {list(x.shape)}）",
                f"under torch.compile(dynamic=True) (x of shape {list(x.shape)})",
            )
        graphs = len(remote.graphs())
        assert graphs == 1, msg(
            f"换了 {len(xs)} 种批大小，Dynamo 编译了 {graphs} 次（应为 1 次）：fake 实现把符号大小变成了具体的 int",
            f"with {len(xs)} batch sizes Dynamo compiled {graphs} times (want once): the fake turns symbolic "
            "sizes into concrete ints",
        )

    return check


@pytest.fixture(scope="session")
def check_meta():
    """check_meta(obs, shape, dtype, device, where_zh, where_en): a described meta / fake output."""

    def check(obs, shape, dtype, device, where_zh, where_en):
        assert obs["is_tensor"], msg(
            f"{where_zh}：ex106::gelu 应返回一个张量，得到 {obs['type']}",
            f"{where_en}: ex106::gelu must return a tensor, got {obs['type']}",
        )
        assert obs["shape"] == list(shape), msg(
            f"{where_zh}：输出形状是 {obs['shape']}，应与输入相同（{list(shape)}）：检查 fake 实现",
            f"{where_en}: the output has shape {obs['shape']}, not the input's ({list(shape)}): check the fake",
        )
        assert obs["dtype"] == str(dtype), msg(
            f"{where_zh}：输出 dtype 是 {obs['dtype']}，应为 {dtype}：fake 实现要沿用输入的 dtype",
            f"{where_en}: the output's dtype is {obs['dtype']}, not {dtype}: the fake must keep the input's dtype",
        )
        assert obs["device"] == device, msg(
            f"{where_zh}：输出在 {obs['device']} 上，应在 {device} 上：fake 实现要沿用输入的设备",
            f"{where_en}: the output is on {obs['device']}, not on {device}: the fake must keep the input's device",
        )
        assert obs["contiguous"], msg(
            f"{where_zh}：fake 实现的输出应是连续张量，与真实输出一致",
            f"{where_en}: the fake's output must be contiguous, like the real output",
        )

    return check


@pytest.fixture(scope="session")
def check_schema():
    """check_schema(s): ex106::gelu(Tensor x) -> Tensor, nothing written, no alias."""

    def check(s):
        assert s is not None, msg(
            '没有找到算子 ex106::gelu：custom_op 的名字应为 "ex106::gelu"',
            'no operator ex106::gelu found: the custom_op\'s name must be "ex106::gelu"',
        )
        args = [(a["name"], a["type"], a["is_write"]) for a in s["arguments"]]
        returns = [(r["type"], r["has_alias"]) for r in s["returns"]]
        assert args == [("x", "Tensor", False)] and returns == [("Tensor", False)], msg(
            f"schema 应为 ex106::gelu(Tensor x) -> Tensor（mutates_args=()，不修改输入，返回新张量），实际是 {s['text']}",
            f"the schema must be ex106::gelu(Tensor x) -> Tensor (mutates_args=(), no input written, a new tensor "
            f"returned); it is {s['text']}",
        )

    return check


OPCHECK_HINTS = {
    "test_schema": (
        "实现修改了输入或返回了输入本身，与 schema 不一致",
        "the implementation writes its input or returns it, which the schema does not declare",
    ),
    "test_autograd_registration": ("autograd 注册有问题", "the autograd registration is wrong"),
    "test_faketensor": (
        "fake 实现与真实实现的输出（形状/dtype/设备/步长）不一致，或 fake 实现读了数据",
        "the fake and the real implementation disagree (shape, dtype, device or strides), or the fake reads data",
    ),
    "test_aot_dispatch_dynamic": (
        "在 AOTAutograd（符号形状）下跑不通：检查 fake 实现",
        "fails under AOTAutograd with symbolic shapes: check the fake",
    ),
}


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result, x): each of opcheck's tests, decided here (judge.checker.opchecks) from what the
    probe observed on x, passes."""

    def check(result, x):
        for name, status in opcheck_results(result["data"], result["schema"], (x,)).items():
            zh, en = OPCHECK_HINTS.get(name, ("", ""))
            assert status == "SUCCESS", msg(
                f"opcheck 的 {name} 失败（{zh}）：{status}", f"opcheck's {name} failed ({en}): {status}"
            )

    return check


OP_NAMES = ("ex106.gelu", "ex106.gelu.default")  # how a graph node's target prints for the operator


@pytest.fixture(scope="session")
def check_explain(remote):
    """check_explain(obs): one graph, no break, and the graph calls ex106::gelu exactly once (counted here from
    the captured graphs' node targets the judge's backend reported through the channel: judge.worker.compiled)."""

    def check(obs):
        captured = remote.graphs()
        graphs = 2 if obs["broke"] else len(captured)
        op_calls = sum(1 for targets in captured for target in targets if target in OP_NAMES)
        assert not obs["broke"], msg(
            "Dynamo 捕获 mlp 时遇到图断点（torch._dynamo.explain(mlp) 会报告至少 2 张图、1 个断点，应为 1 张图、0 个断点）："
            f"mlp 要经过 torch.ops.ex106.gelu，而不是直接调用 opaque_gelu。断点原因：{obs['reason']}",
            "Dynamo meets a graph break in mlp (torch._dynamo.explain(mlp) would report at least 2 graphs and 1 break; "
            "want 1 and 0): mlp must go through torch.ops.ex106.gelu, not call opaque_gelu directly. "
            f"Break reason: {obs['reason']}",
        )
        assert graphs == 1, msg(
            f"Dynamo 把 mlp 捕获成了 {graphs} 张图（应为 1 张）",
            f"Dynamo captured mlp as {graphs} graphs (want 1)",
        )
        assert op_calls == 1, msg(
            f"mlp 的图里调用 ex106::gelu {op_calls} 次（应为 1 次）：gelu 要经过你注册的算子，而不是别的实现",
            f"mlp's graph calls ex106::gelu {op_calls} times (want once): gelu must go through your operator, "
            "not another implementation",
        )

    return check


@pytest.fixture(scope="session")
def probe_causes():
    """What the learner's code raised -> the cause, for the traps the statement warns about (the judge's probe
    fixture puts the first match in place of a test's general hint)."""
    calls_kernel = msg(
        "fake 实现运行了真正的计算（opaque_gelu 要读数据，fake 和 meta 张量没有数据）：fake 只需按 x 的形状、"
        "dtype 和设备分配输出，例如 torch.empty_like(x)",
        "the fake runs the real computation (opaque_gelu reads data, which fake and meta tensors do not have): a "
        "fake only allocates the output from x's shape, dtype and device, e.g. torch.empty_like(x)",
    )
    return [
        ("Cannot copy out of meta tensor", calls_kernel),
        (".numpy() is not supported for tensor subclasses", calls_kernel),
    ]
