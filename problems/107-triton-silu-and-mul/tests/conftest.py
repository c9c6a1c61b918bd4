"""Fixtures for exercise 107 (checker side: never imports the learner's code).

Seeded inputs, the expected values (silu(a) * b in float64), the guarded buffers of the out-variant
checks, tolerances, and the shared checks, each failing with a message in both languages.
"""

import pytest
import torch
import torch.nn.functional as F

from judge.feedback import msg

# The out-variant checks place x and out inside larger buffers. GUARD elements on each side hold
# CANARY (never a value of silu(a) * b here, and exact in every dtype); so does out before the call,
# so that an element the kernel never wrote is seen too. A kernel that reads or writes up to GUARD
# elements past its tensors stays inside the buffers, on the CPU (interpreter) and on a GPU alike.
GUARD = 8192
CANARY = -1000.0


def _make(seed, shape, dtype):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * 2.0).to(dtype)


def out_shape(shape):
    return [*shape[:-1], shape[-1] // 2]


def expected(x):
    x = x.double()
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


@pytest.fixture(scope="session")
def make_input():
    """make_input(seed, shape, dtype) -> a seeded input [..., 2d], values mostly in [-6, 6]."""
    return _make


@pytest.fixture(scope="session")
def close(problem):
    """close(actual, expected, dtype) -> (ok mask, worst): |a - e| <= atol + rtol * |e| elementwise."""

    def check(actual, want, dtype):
        t = problem.tolerances[str(dtype).removeprefix("torch.")]
        diff = (actual.double() - want).abs()
        ok = (diff <= t.atol + t.rtol * want.abs()) & ~torch.isnan(actual.double())
        return ok, (float(diff.max()) if diff.numel() else 0.0)

    return check


@pytest.fixture(scope="session")
def check_out(close):
    """check_out(obs, x, where_zh, where_en): one call of the functional operator."""

    def check(obs, x, where_zh, where_en):
        out = obs["out"]
        assert out is not None, msg(
            f"{where_zh}：silu_and_mul 没有返回张量（返回了 {obs['type']}）",
            f"{where_en}: silu_and_mul returned no tensor (it returned {obs['type']})",
        )
        want = out_shape(list(x.shape))
        assert list(out.shape) == want, msg(
            f"{where_zh}：输出形状是 {list(out.shape)}，应为 {want}（最后一维减半）",
            f"{where_en}: the output has shape {list(out.shape)}, not {want} (last dimension halved)",
        )
        assert out.dtype == x.dtype, msg(
            f"{where_zh}：输出 dtype 是 {out.dtype}，应与输入相同（{x.dtype}）：按 x 的 dtype 分配输出，kernel 里用 float32 计算",
            f"{where_en}: the output's dtype is {out.dtype}, not the input's ({x.dtype}): allocate out with x's dtype "
            "and compute in float32 inside the kernel",
        )
        ok, worst = close(out, expected(x), x.dtype)
        assert bool(ok.all()), msg(
            f"{where_zh}：输出数值不对（最大误差 {worst:.3g}），应为 silu(x[..., :d]) * x[..., d:]",
            f"{where_en}: wrong values (largest error {worst:.3g}); want silu(x[..., :d]) * x[..., d:]",
        )
        assert not obs["x_changed"] and not obs["shares_input_memory"] and obs["contiguous"], msg(
            f"{where_zh}：silu_and_mul 只能读 x，输出应是不与 x 共享内存的新连续张量",
            f"{where_en}: silu_and_mul may only read x; its output must be a new contiguous tensor sharing no memory with x",
        )

    return check


@pytest.fixture(scope="session")
def guarded():
    """guarded(seed, shape, dtype) -> (args for the out_variant probe, x, xbuf, obuf)."""

    def build(seed, shape, dtype):
        x = _make(seed, shape, dtype)
        xbuf = torch.cat([_make(seed + 1, (GUARD,), dtype), x.reshape(-1), _make(seed + 2, (GUARD,), dtype)])
        n = x.numel() // 2
        obuf = torch.full((2 * GUARD + n,), CANARY, dtype=dtype)
        return (xbuf, GUARD, list(shape), obuf, GUARD, out_shape(list(shape))), x, xbuf, obuf

    return build


@pytest.fixture(scope="session")
def check_guarded(close):
    """check_guarded(obs, x, xbuf, obuf, where_zh, where_en): the guards, every element of out, x untouched."""

    def check(obs, x, xbuf, obuf, where_zh, where_en):
        got = obs["obuf"]
        n = x.numel() // 2
        before, region, after = got[:GUARD], got[GUARD : GUARD + n], got[GUARD + n :]
        assert torch.equal(after, obuf[GUARD + n :]), msg(
            f"{where_zh}：kernel 写到了 out 末尾之后的内存（{int((after != obuf[GUARD + n :]).sum())} 个元素被改写）："
            "最后一个块超出了 n，load 和 store 都要用 mask=offs < n",
            f"{where_en}: the kernel wrote past the end of out ({int((after != obuf[GUARD + n :]).sum())} elements "
            "overwritten): the last block runs past n, so mask loads and stores with offs < n",
        )
        assert torch.equal(before, obuf[:GUARD]), msg(
            f"{where_zh}：kernel 写到了 out 开头之前的内存：检查输出的偏移计算",
            f"{where_en}: the kernel wrote before the start of out: check how output offsets are computed",
        )
        region = region.view(out_shape(list(x.shape)))
        unwritten = int((region == CANARY).sum())
        assert unwritten == 0, msg(
            f"{where_zh}：out 有 {unwritten} 个元素没有被写到：grid 要覆盖全部 n 个输出（triton.cdiv(n, BLOCK)，不是 n // BLOCK）",
            f"{where_en}: {unwritten} elements of out were never written: the grid must cover all n outputs "
            "(triton.cdiv(n, BLOCK), not n // BLOCK)",
        )
        ok, worst = close(region, expected(x), x.dtype)
        assert bool(ok.all()), msg(
            f"{where_zh}：out 的数值不对（最大误差 {worst:.3g}），应为 silu(x[..., :d]) * x[..., d:]",
            f"{where_en}: wrong values in out (largest error {worst:.3g}); want silu(x[..., :d]) * x[..., d:]",
        )
        assert torch.equal(obs["xbuf"], xbuf), msg(
            f"{where_zh}：silu_and_mul_out 修改了 x 或它周围的内存：只能写 out",
            f"{where_en}: silu_and_mul_out changed x or the memory around it: it may only write out",
        )
        assert obs["returned"] == "NoneType", msg(
            f"{where_zh}：silu_and_mul_out 应返回 None（schema 是 -> ()）",
            f"{where_en}: silu_and_mul_out must return None (its schema is -> ())",
        )

    return check


@pytest.fixture(scope="session")
def check_meta():
    """check_meta(obs, shape, dtype, device, where_zh, where_en): a described meta / fake output."""

    def check(obs, shape, dtype, device, where_zh, where_en):
        want = out_shape(list(shape))
        assert obs["is_tensor"], msg(
            f"{where_zh}：silu_and_mul 应返回一个张量，得到 {obs['type']}",
            f"{where_en}: silu_and_mul must return a tensor, got {obs['type']}",
        )
        assert obs["shape"] == want, msg(
            f"{where_zh}：输出形状是 {obs['shape']}，应为 {want}（fake 实现要把最后一维减半）",
            f"{where_en}: the output has shape {obs['shape']}, not {want} (the fake halves the last dimension)",
        )
        assert obs["dtype"] == str(dtype) and obs["device"] == device, msg(
            f"{where_zh}：输出是 {obs['device']} 上的 {obs['dtype']}，应为 {device} 上的 {dtype}：fake 实现沿用 x 的 dtype 和设备",
            f"{where_en}: the output is {obs['dtype']} on {obs['device']}, not {dtype} on {device}: the fake keeps "
            "x's dtype and device",
        )

    return check


@pytest.fixture(scope="session")
def check_schema():
    """check_schema(s, name, args): argument (name, type, written) triples and one Tensor or no return."""

    def check(s, name, text, args, returns):
        assert s is not None, msg(
            f'没有找到算子 ex107::{name}：custom_op 的名字应为 "ex107::{name}"',
            f'no operator ex107::{name} found: the custom_op\'s name must be "ex107::{name}"',
        )
        got_args = [(a["name"], a["type"], a["is_write"]) for a in s["arguments"]]
        got_returns = [(r["type"], r["has_alias"]) for r in s["returns"]]
        assert got_args == args and got_returns == returns, msg(
            f"ex107::{name} 的 schema 应为 {text}，实际是 {s['text']}",
            f"the schema of ex107::{name} must be {text}; it is {s['text']}",
        )

    return check


@pytest.fixture(scope="session")
def check_opcheck():
    def check(result, name):
        for test, status in result.items():
            assert status == "SUCCESS", msg(
                f"ex107::{name} 的 opcheck {test} 失败：{status}", f"opcheck {test} of ex107::{name} failed: {status}"
            )

    return check


@pytest.fixture
def on_cuda(probe):
    """For GPU-tier tests: the worker's kernels run compiled on a CUDA device, not in the interpreter."""
    env = probe("environment", hint=msg("读取运行环境出错", "reading the worker's environment failed"))
    assert env["device"] == "cuda", msg(
        "这一部分需要 CUDA GPU：判题进程里没有可用的 GPU", "this part needs a CUDA GPU: the judging worker has none"
    )
    return env
