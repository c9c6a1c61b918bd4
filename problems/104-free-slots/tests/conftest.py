"""Fixtures for exercise 104 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: seeded
inputs and the expected indices computed with plain torch. Everything here is exact (integer
indices): no tolerances.
"""

import pytest
import torch


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


@pytest.fixture(scope="session")
def check_free():
    """check_free(out, used, where): a 1-D int64 tensor holding exactly the free slots, ascending."""

    def check(out, used, where):
        assert out is not None, f"{where}：free_slots 没有返回张量"
        want = _expected(used)
        assert out.dtype == torch.int64, f"{where}：输出 dtype 是 {out.dtype}，应为 torch.int64（下标）"
        assert out.dim() == 1, (
            f"{where}：输出形状是 {list(out.shape)}，应为一维 [空闲槽位数]"
            "（torch.nonzero 返回 [k, 1]，要展平）")
        assert out.numel() == want.numel(), (
            f"{where}：找到 {out.numel()} 个空闲槽位，应为 {want.numel()} 个（used 为 False 的位置）")
        assert torch.equal(out, want), (
            f"{where}：空闲槽位不对：应为 used 为 False 的下标、从小到大，前几个应为 {want[:8].tolist()}，"
            f"得到 {out[:8].tolist()}")

    return check


OPCHECK_HINTS = {
    "test_schema": "实现修改了输入或输出与输入共享内存，与 schema 不一致",
    "test_autograd_registration": "autograd 注册有问题",
    "test_faketensor": "fake 实现给出的形状/dtype/设备/步长/storage offset 与真实实现不一致，或 fake 实现读了数据；"
                       "两者的输出都应是 storage offset 为 0 的连续张量",
    "test_aot_dispatch_dynamic": "在 AOTAutograd（符号形状）里跑不通",
}


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result): every opcheck test reports SUCCESS."""

    def check(result):
        for name, status in result.items():
            assert status == "SUCCESS", (
                f"opcheck 的 {name} 失败（{OPCHECK_HINTS.get(name, '')}）：{status}")

    return check


@pytest.fixture(scope="session")
def check_schema():
    """check_schema(s): ex104::free_slots(Tensor used) -> Tensor, nothing written, no alias."""

    def check(s):
        assert s is not None, "没有找到 torch.ops.ex104.free_slots：custom_op 的名字应为 \"ex104::free_slots\""
        written = [a["name"] for a in s["arguments"] if a["is_write"]]
        assert not written, (
            f"free_slots 只读 used，schema 却声明修改了 {written}（mutates_args 应为空元组）")
        args = [(a["name"], a["type"]) for a in s["arguments"]]
        assert args == [("used", "Tensor")], f"free_slots 的参数应为 (Tensor used)，schema 是 {s['text']}"
        assert len(s["returns"]) == 1 and s["returns"][0]["type"] == "Tensor", (
            f"free_slots 应返回一个 Tensor，schema 是 {s['text']}")
        assert not s["returns"][0]["has_alias"], "free_slots 的输出应是新张量，schema 却标注它与输入别名"

    return check


@pytest.fixture(scope="session")
def check_unbacked():
    """check_unbacked(obs, where, device="cpu"): a fake output that is 1-D int64 on ``device``
    (the device of used), its length an unbacked SymInt."""

    def check(obs, where, device="cpu"):
        assert obs["is_tensor"], f"{where}：free_slots 应返回一个张量，得到 {obs['type']}"
        assert obs["dim"] == 1, f"{where}：fake 实现给出的输出是 {obs['dim']} 维，应为一维"
        assert obs["dtype"] == "torch.int64", f"{where}：fake 实现给出的 dtype 是 {obs['dtype']}，应为 torch.int64"
        assert obs["device"] == device, (
            f"{where}：fake 实现给出的设备是 {obs['device']}，应沿用 used 的设备（{device}）："
            "分配输出时带上 device=used.device，或用 used.new_empty(...)")
        size = obs["sizes"][0]
        assert size["unbacked"], (
            f"{where}：输出长度是 {size['text']}，应是一个新的数据相关符号大小（unbacked SymInt，形如 u0）："
            "空闲槽位数由 used 的值决定，fake 实现要用 torch.library.get_ctx().new_dynamic_size() 得到它，"
            "不能用 used 的长度或一个固定数")

    return check


@pytest.fixture(scope="session")
def check_data_dependent_raise():
    """check_data_dependent_raise(obs): under FakeTensorMode without a ShapeEnv the op itself
    (through new_dynamic_size) raised DynamicOutputShapeException."""

    def check(obs):
        where = "没有 ShapeEnv 的 FakeTensorMode 下"
        raised = obs["raised"]
        assert raised is not None, (
            f"{where}，free_slots 给出了一个具体长度的输出：空闲槽位数取决于数据，fake 实现不能编一个大小；"
            "应调用 get_ctx().new_dynamic_size()（没有 ShapeEnv 时它抛出 DynamicOutputShapeException）")
        assert raised["type"] == "DynamicOutputShapeException" and raised["op"] == "ex104.free_slots.default", (
            f"{where}，应由 free_slots 自己（new_dynamic_size）报告输出大小取决于数据"
            f"（DynamicOutputShapeException: ex104.free_slots.default），"
            f"实际抛出了 {raised['type']}: {raised['op'] or raised['message']}："
            "fake 实现不要调用 nonzero、item、sum 等依赖数据的运算")

    return check


@pytest.fixture(scope="session")
def check_compiled(check_free):
    """check_compiled(cases, obs): each compiled step returned the free slots, the values at
    those slots, and the right count from the output's size."""

    def check(cases, obs):
        assert len(obs) == len(cases), "torch.compile 下的调用次数不对"
        for (used, values), item in zip(cases, obs):
            where = f"torch.compile 下（长度 {used.numel()}）"
            check_free(item["free"], used, where)
            want = _expected(used)
            assert item["count"] == want.numel(), (
                f"{where}：编译出的图算出的空闲槽位数 free.shape[0] 是 {item['count']}，实际是 {want.numel()}："
                "图里的形状来自 fake 实现，fake 实现不能用 used 的长度或固定数代替数据决定的大小")
            assert torch.equal(item["picked"], values[want]), f"{where}：values[free] 不对"

    return check
