"""Fixtures for exercise 104 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: seeded
inputs, the expected indices computed with plain torch, and the checks, each failing with
msg(zh, en). Everything here is exact (integer indices): no tolerances. A ``where`` argument is a
(zh, en) pair naming the call.
"""

import re

import pytest
import torch

from judge.checker.opchecks import opcheck_results
from judge.report.feedback import compare, guessing, msg


@pytest.fixture(scope="session")
def make_used():
    """make_used(seed, n, p_used) -> a seeded 1-D bool tensor, each slot used with probability p_used."""

    def build(seed, n, p_used=0.5):
        g = torch.Generator().manual_seed(seed)
        return torch.rand(n, generator=g, dtype=torch.float64) < p_used

    return build


@pytest.fixture(scope="session")
def make_values():
    """make_values(seed, n) -> seeded float32 values, one per slot."""

    def build(seed, n):
        g = torch.Generator().manual_seed(seed + 7919)
        return torch.randn(n, generator=g)

    return build


def _expected(used):
    """The free slots, computed plainly: every i with used[i] False, ascending, int64."""
    return torch.tensor([i for i, u in enumerate(used.tolist()) if not u], dtype=torch.int64)


def _check_free(out, used, where):
    wz, we = where
    assert out is not None, msg(f"{wz}：free_slots 没有返回张量", f"{we}: free_slots returned no tensor")
    want = _expected(used)
    assert out.dtype == torch.int64, msg(
        f"{wz}：输出 dtype 是 {out.dtype}，应为 torch.int64（下标）",
        f"{we}: the output dtype is {out.dtype}, expected torch.int64 (indices)",
    )
    assert out.dim() == 1, msg(
        f"{wz}：输出形状是 {list(out.shape)}，应为一维 [空闲槽位数]（torch.nonzero 返回 [k, 1]，要展平）",
        f"{we}: the output has shape {list(out.shape)}, expected 1-D [number of free slots] "
        "(torch.nonzero returns [k, 1]: flatten it)",
    )
    assert out.numel() == want.numel(), msg(
        f"{wz}：找到 {out.numel()} 个空闲槽位，应为 {want.numel()} 个（used 为 False 的位置）",
        f"{we}: found {out.numel()} free slots, expected {want.numel()} (the positions where used is False)",
    )
    if not torch.equal(out, want):
        i = int((out != want).nonzero()[0])
        raise AssertionError(
            msg(
                f"{wz}：空闲槽位不对：应为 used 为 False 的下标、从小到大；第 {i} 个应为 {int(want[i])}，得到 {int(out[i])}",
                f"{we}: wrong free slots: expected the indices where used is False, ascending; entry {i} should be "
                f"{int(want[i])}, got {int(out[i])}",
            )
        )


@pytest.fixture(scope="session")
def check_free():
    """check_free(out, used, where): a 1-D int64 tensor holding exactly the free slots, ascending."""
    return _check_free


@pytest.fixture(scope="session")
def check_eager():
    """check_eager(obs, used): the free slots from an eager call, and used left alone."""

    def check(obs, used):
        n = used.numel()
        _check_free(obs["out"], used, (f"eager 调用（长度 {n}）", f"eager call (length {n})"))
        assert (obs["used_after"] is None or torch.equal(obs["used_after"], used)) and not obs.get("written"), msg(
            "free_slots 修改了输入 used（哪怕又把值改了回去）：它只能读 used",
            "free_slots modified its input used (even if it put the values back): it may only read it",
        )

    return check


# ---------------------------------------------------------------- opcheck

OPCHECK_HINTS = {
    "test_schema": (
        "实现修改了输入，或输出与输入共享内存，与 schema 不一致",
        "the implementation modified its input or returned memory shared with it, which the schema does not declare",
    ),
    "test_autograd_registration": ("autograd 注册有问题", "the autograd registration is wrong"),
    "test_faketensor": (
        "fake 实现与真实实现的输出不一致，或 fake 实现读了数据",
        "the fake and the real implementation disagree, or the fake read data",
    ),
    "test_aot_dispatch_dynamic": ("在 AOTAutograd（符号形状）里跑不通", "it fails under AOTAutograd (symbolic shapes)"),
}
# opcheck's test_faketensor names the operator in a long preamble, then what differs (real first, fake second)
_METADATA_PREAMBLE = re.compile(
    r"^MetadataMismatchError: When comparing the output of \S+ on FakeTensor and "
    r"concrete Tensors, found mismatched tensor metadata: "
)
_METADATA = {  # the start of torch's detail, lower-cased -> what it means here
    "shapes": (
        "fake 实现给出的输出形状与真实输出不同：两者都是一维 [k]",
        "the fake's output shape differs from the real output's: both are 1-D [k]",
    ),
    "dtypes": (
        "真实输出与 fake 实现给出的输出 dtype 不同：下标是 torch.int64",
        "the real output and the fake's differ in dtype: indices are torch.int64",
    ),
    "devices": ("fake 实现给出的输出设备与真实输出不同", "the fake's output device differs from the real output's"),
    "stride": (
        "真实输出与 fake 的输出步长不同：两者都应是连续的一维张量",
        "the real output and the fake's have different strides: both must be contiguous 1-D tensors",
    ),
    "storage offset": (
        "真实输出与 fake 的输出 storage offset 不同：真实实现若返回视图（例如二维 nonzero 结果的一列），"
        "要 .clone() 成从 offset 0 开始的新张量",
        "the real output and the fake's have different storage offsets: if the implementation "
        "returns a view (a column of a 2-D nonzero result, say), .clone() it into a new tensor "
        "starting at offset 0",
    ),
}


# torch's words when new_dynamic_size gets a bound that is not a plain int (max=used.shape[0], say)
SYMBOLIC_BOUND = "expected min and max to be statically known ints"
SYMBOLIC_BOUND_CAUSE = (
    "new_dynamic_size 的 min 和 max 必须是 Python 整数，例如 max=4096：used.shape[0] 这类长度在 "
    "FakeTensorMode、opcheck 和 torch.compile 下是符号大小，不能用",
    "new_dynamic_size's min and max must be Python ints, such as max=4096: a length like used.shape[0] "
    "is a symbolic size under FakeTensorMode, opcheck and torch.compile",
)


def _opcheck_failure(name, status):
    """(zh, en): which opcheck test failed, why in the chapter's terms, then torch's own words."""
    if SYMBOLIC_BOUND in status:
        zh, en = SYMBOLIC_BOUND_CAUSE
        return f"opcheck 的 {name} 失败：{zh}（{status}）", f"opcheck's {name} failed: {en} ({status})"
    detail = _METADATA_PREAMBLE.sub("", status).strip()
    if detail != status:
        key = detail.lower().removeprefix("mismatched ")
        for start, (zh, en) in _METADATA.items():
            if key.startswith(start):
                return f"opcheck 的 {name} 失败：{zh}（{detail}）", f"opcheck's {name} failed: {en} ({detail})"
    zh, en = OPCHECK_HINTS.get(name, ("", ""))
    return f"opcheck 的 {name} 失败（{zh}）：{status}", f"opcheck's {name} failed ({en}): {status}"


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result, used): each of opcheck's tests, decided here (judge.checker.opchecks) from what the
    probe observed on ``used``, passes."""

    def check(result, used):
        for name, status in opcheck_results(result["data"], result["schema"], (used,)).items():
            assert status == "SUCCESS", msg(*_opcheck_failure(name, status))

    return check


# ---------------------------------------------------------------- schema

NOT_FOUND = msg(
    '没有找到 torch.ops.ex104.free_slots：custom_op 的名字应为 "ex104::free_slots"',
    'torch.ops.ex104.free_slots not found: the custom_op must be named "ex104::free_slots"',
)


@pytest.fixture(scope="session")
def check_schema():
    """check_schema(s): ex104::free_slots(Tensor used) -> Tensor, nothing written, no alias."""

    def check(s):
        assert s is not None, NOT_FOUND
        written = [a["name"] for a in s["arguments"] if a["is_write"]]
        assert not written, msg(
            f"free_slots 只读 used，schema 却声明修改了 {written}（mutates_args 应为空元组）",
            f"free_slots only reads used, yet the schema declares {written} as written "
            "(mutates_args should be the empty tuple)",
        )
        args = [(a["name"], a["type"]) for a in s["arguments"]]
        assert args == [("used", "Tensor")], msg(
            f"free_slots 的参数应为 (Tensor used)，schema 是 {s['text']}",
            f"free_slots should take (Tensor used); the schema is {s['text']}",
        )
        assert len(s["returns"]) == 1 and s["returns"][0]["type"] == "Tensor", msg(
            f"free_slots 应返回一个 Tensor，schema 是 {s['text']}",
            f"free_slots should return one Tensor; the schema is {s['text']}",
        )
        assert not s["returns"][0]["has_alias"], msg(
            "free_slots 的输出应是新张量，schema 却标注它与输入别名",
            "the output of free_slots should be a new tensor, yet the schema marks it as an alias of the input",
        )

    return check


# ---------------------------------------------------------------- fake and meta


@pytest.fixture(scope="session")
def check_unbacked():
    """check_unbacked(obs, where, device="cpu"): a fake output that is 1-D int64 on ``device``
    (the device of used), its length an unbacked SymInt."""

    def check(obs, where, device="cpu"):
        wz, we = where
        assert obs["is_tensor"], msg(
            f"{wz}：free_slots 应返回一个张量，得到 {obs['type']}",
            f"{we}: free_slots should return a tensor, got {obs['type']}",
        )
        assert obs["dim"] == 1, msg(
            f"{wz}：fake 实现给出的输出是 {obs['dim']} 维，应为一维",
            f"{we}: the fake gives a {obs['dim']}-D output, expected 1-D",
        )
        assert obs["dtype"] == "torch.int64", msg(
            f"{wz}：fake 实现给出的 dtype 是 {obs['dtype']}，应为 torch.int64",
            f"{we}: the fake gives dtype {obs['dtype']}, expected torch.int64",
        )
        assert obs["device"] == device, msg(
            f"{wz}：fake 实现给出的设备是 {obs['device']}，应沿用 used 的设备（{device}）："
            "分配输出时带上 device=used.device，或用 used.new_empty(...)",
            f"{we}: the fake gives device {obs['device']}, expected the device of used ({device}): "
            "allocate with device=used.device, or with used.new_empty(...)",
        )
        size = obs["sizes"][0]
        assert size["unbacked"], msg(
            f"{wz}：输出长度是 {size['text']}，应是一个新的数据相关符号大小（unbacked SymInt，形如 u0）："
            "空闲槽位数由 used 的值决定，fake 实现要用 torch.library.get_ctx().new_dynamic_size() 得到它，"
            "不能用 used 的长度或一个固定数",
            f"{we}: the output length is {size['text']}; it should be a fresh data-dependent symbolic size "
            "(an unbacked SymInt such as u0): the number of free slots depends on the values of used, so the "
            "fake must get it from torch.library.get_ctx().new_dynamic_size(), not use the length of used or a "
            "fixed number",
        )

    return check


@pytest.fixture(scope="session")
def check_data_dependent_raise():
    """check_data_dependent_raise(obs): under FakeTensorMode without a ShapeEnv the op itself
    (through new_dynamic_size) raised DynamicOutputShapeException."""

    def check(obs):
        raised = obs["raised"]
        assert raised is not None, msg(
            "没有 ShapeEnv 的 FakeTensorMode 下，free_slots 给出了一个具体长度的输出：空闲槽位数取决于数据，"
            "fake 实现不能编一个大小；应调用 get_ctx().new_dynamic_size()（没有 ShapeEnv 时它抛出 "
            "DynamicOutputShapeException）",
            "under a FakeTensorMode without a ShapeEnv, free_slots gave an output of concrete length: the number "
            "of free slots depends on the data, and a fake may not make a size up; call "
            "get_ctx().new_dynamic_size() (without a ShapeEnv it raises DynamicOutputShapeException)",
        )
        got = f"{raised['type']}: {raised['op'] or raised['message']}"
        assert raised["type"] == "DynamicOutputShapeException" and raised["op"] == "ex104.free_slots.default", msg(
            "没有 ShapeEnv 的 FakeTensorMode 下，应由 free_slots 自己（new_dynamic_size）报告输出大小取决于数据"
            f"（DynamicOutputShapeException: ex104.free_slots.default），实际抛出了 {got}："
            "fake 实现不要调用 nonzero、item、sum 等依赖数据的运算",
            "under a FakeTensorMode without a ShapeEnv, free_slots itself (through new_dynamic_size) should report "
            f"that its output size depends on the data (DynamicOutputShapeException: ex104.free_slots.default), "
            f"but {got} was raised: the fake must not call data-dependent operations such as nonzero, item or sum",
        )

    return check


MADE_UP_ON_META = msg(
    "meta 设备上 free_slots 给出了一个具体长度的输出：meta 张量没有数据，也没有 ShapeEnv 来表示"
    "数据决定的大小；fake 实现用 new_dynamic_size() 时，这里会报错而不是编一个长度",
    "on a meta tensor free_slots gave an output of concrete length: a meta tensor has no data and no ShapeEnv "
    "to hold a data-dependent size; a fake that uses new_dynamic_size() raises here instead of making a length up",
)


@pytest.fixture(scope="session")
def made_up_on_meta():
    """The failure when free_slots gives a meta tensor an output of concrete length."""
    return MADE_UP_ON_META


# ---------------------------------------------------------------- torch.compile


@pytest.fixture(scope="session")
def check_compiled():
    """check_compiled(cases, obs): each compiled step returned the free slots, the values at
    those slots, and the right count from the output's size."""

    def check(cases, obs):
        assert len(obs) == len(cases), msg(
            "torch.compile 下的调用次数不对", "wrong number of calls under torch.compile"
        )
        for (used, values), item in zip(cases, obs):
            n, k = used.numel(), int((~used).sum())
            where = (
                f"torch.compile 下（长度 {n}，{k} 个空闲槽位）",
                f"under torch.compile (length {n}, {k} free slots)",
            )
            _check_no_failed_bound(item, where)
            _check_free(item["free"], used, where)
            want = _expected(used)
            assert item["count"] == want.numel(), msg(
                f"{where[0]}：编译出的图算出的空闲槽位数 free.shape[0] 是 {item['count']}，实际是 {want.numel()}："
                "图里的形状来自 fake 实现，fake 实现不能用 used 的长度或固定数代替数据决定的大小",
                f"{where[1]}: the compiled graph computed free.shape[0] = {item['count']}, but {want.numel()} slots "
                "are free: shapes in the graph come from the fake, which may not replace the data-dependent size "
                "with the length of used or a fixed number",
            )
            wrong = compare(item["picked"], values[want], rtol=0, atol=0)
            assert wrong is None, msg(f"{where[0]}：values[free] {wrong.zh}", f"{where[1]}: values[free]: {wrong.en}")

    return check


def _check_no_failed_bound(item, where):
    """The compiled graph checks at run time that the real count lies within new_dynamic_size's min/max."""
    failed = item.get("bound_failed")
    assert not failed, msg(
        f"{where[0]}：编译出的图在运行时检查 fake 给出的数据相关大小时失败（{failed}）：new_dynamic_size 的 "
        "min/max 必须容纳从 0 到 4096 的每一个空闲槽位数（不写它们，或 min=0、max ≥ 4096）",
        f"{where[1]}: the compiled graph's run-time check of the fake's data-dependent size failed ({failed}): "
        "the min/max given to new_dynamic_size must admit every count of free slots from 0 to 4096 (leave "
        "them out, or use min=0 and max >= 4096)",
    )


# ---------------------------------------------------------------- probe hints (what was being done)

HINTS = {
    "op_exists": msg("查找算子时出错", "looking up the operator failed"),
    "schema": msg("读取 schema 时出错", "reading the schema failed"),
    "eager": msg("eager 调用 free_slots 时出错", "calling free_slots eagerly failed"),
    "fake_with_shape_env": guessing(
        "在带 ShapeEnv 的 FakeTensorMode 下调用 free_slots 出错",
        "calling free_slots under FakeTensorMode with a ShapeEnv failed",
    ),
    "fake_meta": msg(
        "在带 ShapeEnv 的 FakeTensorMode 下、对 meta 设备上的 used 调用 free_slots 出错",
        "calling free_slots under FakeTensorMode with a ShapeEnv, on a used that is on meta, failed",
    ),
    "fake_without_shape_env": msg(
        "在 FakeTensorMode 下调用 free_slots 出错", "calling free_slots under FakeTensorMode failed"
    ),
    "meta": msg("在 meta 设备上调用 free_slots 出错", "calling free_slots on a meta tensor failed"),
    "opcheck": msg("opcheck 出错", "opcheck failed"),
    "compiled": msg(
        'torch.compile(fullgraph=True, backend="aot_eager") 下调用 free_slots 出错',
        'calling free_slots under torch.compile(fullgraph=True, backend="aot_eager") failed',
    ),
}


@pytest.fixture(scope="session")
def hints():
    """hints[probe name]: the bilingual hint a probe call fails with when the learner's code raises."""
    return HINTS


@pytest.fixture(scope="session")
def probe_causes():
    """What the learner's code raised -> the cause, for the traps the statement warns about (the judge's probe
    fixture puts the first match in place of a test's general hint)."""
    return [
        (SYMBOLIC_BOUND, msg(*SYMBOLIC_BOUND_CAUSE)),
        (
            "data-dependent expression",
            msg(
                "fake 实现把由数据决定的长度变成了 Python 整数（.item()、int() 或拿它作比较）：让它保持符号，"
                "用 torch.library.get_ctx().new_dynamic_size() 得到长度 k，再返回长度为 k 的新 int64 张量",
                "the fake turns the data-dependent length into a Python int (.item(), int() or a comparison): keep "
                "it symbolic, take k = torch.library.get_ctx().new_dynamic_size() and return a new int64 tensor of "
                "length k",
            ),
        ),
    ]
