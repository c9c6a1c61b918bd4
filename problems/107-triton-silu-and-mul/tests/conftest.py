"""Fixtures for exercise 107 (checker side: never imports the learner's code).

Seeded inputs, the expected values (silu(a) * b in float64), the guarded buffers of the out-variant
checks, tolerances, and the shared checks, each failing with a message in both languages.
"""

import pytest
import torch
import torch.nn.functional as F

from judge.checker.opchecks import opcheck_results
from judge.report.feedback import as_text, compare, msg

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


def _where_in(f):
    """(zh, en): where the example index lies relative to its tensor."""
    if f["index"] < 0:
        return "在它的起点之前", "before its start"
    if f["index"] >= f.get("numel", 0):
        return f"在它的末尾之后（它只有 {f['numel']} 个元素）", f"past its end (it has {f['numel']} elements)"
    return "", ""


def access_message(f, where_zh, where_en):
    """One finding of the interpreter's load/store checks (probes.py _Launch) as a message in both languages."""
    k, t, n, i = f["kernel"], f["tensor"], f["count"], f["index"]
    if f["what"] == "unhooked":
        return msg(
            f"{where_zh}：你的代码替换了 Triton 解释器的 load / store（判题用它们检查每一次访问），结果不予采信",
            f"{where_en}: your code replaced the load / store of Triton's interpreter (the judge checks every "
            "access through them); the result is not trusted",
        )
    if f["what"] == "race":
        a, b = f["programs"]
        return msg(
            f"{where_zh}：kernel {k} 让 {n} 个 {t} 的元素被不止一个 program 写入，这在 GPU 上是竞争（race）"
            f"（例如 {t}[{i}]，program {a} 和 {b} 都写了它）：每个 program 只能写它自己的那些元素。解释器一个接一个地运行"
            "program，所以这里数值可能碰巧是对的；GPU 上它们同时运行",
            f"{where_en}: kernel {k} wrote {n} elements of {t} from more than one program, a race on a GPU (for "
            f"example {t}[{i}], written by programs {a} and {b}): each program must write only its own elements. "
            "The interpreter runs programs one after another, so the values may come out right here; a GPU runs "
            "them at the same time",
        )
    side_zh, side_en = _where_in(f)
    side_zh, side_en = (f"，{side_zh}" if side_zh else ""), (f", {side_en}" if side_en else "")
    if f["what"] == "load":
        return msg(
            f"{where_zh}：kernel {k} 读取了 {t} 之外的 {n} 个元素（例如 {t}[{i}]{side_zh}），这些 load 没有 mask，"
            "或 mask 放行了它们：load 也要加 mask（mask=offs < n），不只是 store。GPU 上这样的读取得到垃圾值或直接出错；"
            "这里没有执行它们",
            f"{where_en}: kernel {k} loaded {n} elements outside {t} (for example {t}[{i}]{side_en}) through a "
            "load with no mask or a mask that lets them through: mask the loads as well as the store "
            "(mask=offs < n). On a GPU such a read returns garbage or faults; here it was not performed",
        )
    return msg(
        f"{where_zh}：kernel {k} 向 {t} 之外写了 {n} 个元素（例如 {t}[{i}]{side_zh}）：最后一个块超出了 n，store 要用 "
        "mask=offs < n（也检查输出偏移的计算）。GPU 上这会悄悄改写别人的内存；这里没有执行这些写入",
        f"{where_en}: kernel {k} stored {n} elements outside {t} (for example {t}[{i}]{side_en}): the last "
        "block runs past n, so mask the store with offs < n (and check how output offsets are computed). On a "
        "GPU this silently overwrites other memory; here it was not performed",
    )


def check_accesses(obs, where_zh, where_en):
    """No load or store outside the kernel's tensors, no element written by two programs, no GPU driver asked
    for: what Triton's interpreter saw during one probe (the CPU tier; empty on the GPU tier)."""
    assert not obs.get("driver"), msg(
        f"{where_zh}：Triton 的解释器里有代码要求 GPU 驱动（{obs.get('driver')}）。CPU 这一层没有 GPU："
        "不要在这里测速或查询设备（triton.testing.do_bench、torch.cuda……）；@triton.autotune 的 kernel 在这里只用它的第一个 config 运行",
        f"{where_en}: code under Triton's interpreter asked for a GPU driver ({obs.get('driver')}). The CPU tier "
        "has no GPU: do not benchmark or query the device here (triton.testing.do_bench, torch.cuda...); an "
        "@triton.autotune kernel runs with its first config here",
    )
    found = obs.get("accesses") or []
    assert not found, access_message(found[0], where_zh, where_en)


def _bad_values(problem, actual, want, dtype, where_zh, where_en, what_zh, what_en):
    """The message for values that are not close (judge.report.feedback.compare: how many, the first, the largest error
    and where, NaN named as NaN), or None."""
    t = problem.tolerances[str(dtype).removeprefix("torch.")]
    wrong = compare(actual, want, rtol=t.rtol, atol=t.atol)
    if wrong is None:
        return None
    return msg(
        f"{where_zh}：{what_zh}数值不对：{wrong.zh}；应为 silu(x[..., :d]) * x[..., d:]",
        f"{where_en}: wrong values in {what_en}: {wrong.en}; want silu(x[..., :d]) * x[..., d:]",
    )


def _unwritten_why_zh(w):
    """Why elements were never written, from what the interpreter saw (w: probes' written(), plus the guarded
    check's `tail` and `first`); on the GPU tier only the layout of the holes is known."""
    if w.get("interpreted") and w.get("launches") == 0:
        return "没有启动任何 kernel：在这个算子里用 grid 启动你的 Triton kernel"
    if w.get("interpreted") and w.get("programs") == 0:
        return "grid 里一个 program 也没有：n < BLOCK 时 n // BLOCK 是 0；要启动 triton.cdiv(n, BLOCK) 个 program"
    if w.get("interpreted") and w.get("stored") == 0 and w.get("stored_anywhere"):
        return (
            "kernel 一个元素也没有写进调用者给的 out：它写进了别的张量。把 out 本身传给 kernel；"
            "新建一个张量（或给 out 重新赋值）不会改变调用者的 out"
        )
    if w.get("masked_inside"):
        return (
            f"store 的 mask 在 out 里面关掉了 {w['masked_inside']} 个位置：mask 应为 offs < n（n = out.numel()），"
            "对 out 的每个元素都为真"
        )
    if w.get("tail"):
        return "缺的是最后那些元素：grid 太小，要启动 triton.cdiv(n, BLOCK) 个 program（n // BLOCK 会丢掉最后一个块）"
    return f"第一个没写到的在展平后的下标 {w.get('first', 0)}：检查每个 program 计算的输出偏移（以及 grid 是否覆盖全部 n 个输出）"


def _unwritten_why_en(w):
    if w.get("interpreted") and w.get("launches") == 0:
        return "no kernel was launched: launch your Triton kernel over a grid in this operator"
    if w.get("interpreted") and w.get("programs") == 0:
        return "the grid had no programs at all: n // BLOCK is 0 when n < BLOCK; launch triton.cdiv(n, BLOCK) programs"
    if w.get("interpreted") and w.get("stored") == 0 and w.get("stored_anywhere"):
        return (
            "the kernel stored none of them into the out it was given: it wrote into another tensor. Pass out "
            "itself to the kernel; a new tensor (or rebinding out) does not change the caller's out"
        )
    if w.get("masked_inside"):
        return (
            f"the store's mask switched off {w['masked_inside']} lanes inside out: the mask must be offs < n "
            "(n = out.numel()), true for every element of out"
        )
    if w.get("tail"):
        return (
            "the missing ones are the last elements: the grid is too small; launch triton.cdiv(n, BLOCK) programs "
            "(n // BLOCK drops the last block)"
        )
    return (
        f"the first one is at flat index {w.get('first', 0)}: check the output offsets each program computes "
        "(and that the grid covers all n outputs)"
    )


@pytest.fixture(scope="session", name="check_accesses")
def check_accesses_fixture():
    """check_accesses(obs, where_zh, where_en): see check_accesses above."""
    return check_accesses


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


def _x_changed(obs, x):
    """Whether x, or the guard regions around it in the probe's buffer (GUARD elements of -7.0 each side),
    changed: from the buffer the probe returned, or an observation's own x_changed (a compiled call's)."""
    if "xbuf_after" not in obs:
        return bool(obs.get("x_changed"))
    got = obs["xbuf_after"]
    fill = torch.full((GUARD,), -7.0, dtype=x.dtype)
    want = torch.cat([fill, x.reshape(-1), fill])
    return got is None or got.shape != want.shape or not torch.equal(got, want)


@pytest.fixture(scope="session")
def check_out(close, problem):
    """check_out(obs, x, where_zh, where_en): one call of the functional operator."""

    def check(obs, x, where_zh, where_en):
        check_accesses(obs, where_zh, where_en)
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
        want_values = expected(x)
        ok, _worst = close(out, want_values, x.dtype)
        written = obs.get("written") or {}
        unwritten = out.numel() - written.get("stored", out.numel())
        assert bool(ok.all()) or not written.get("launches") or unwritten <= 0, msg(
            f"{where_zh}：输出有 {unwritten} 个元素 kernel 没有写到（数值因此不对）：{_unwritten_why_zh(written)}",
            f"{where_en}: the kernels left {unwritten} elements of the output unwritten (so its values are wrong): "
            f"{_unwritten_why_en(written)}",
        )
        wrong = _bad_values(problem, out, want_values, x.dtype, where_zh, where_en, "输出", "the output")
        assert bool(ok.all()) and wrong is None, wrong
        assert not _x_changed(obs, x) and not obs["shares_input_memory"] and obs["contiguous"], msg(
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
def check_guarded(close, problem):
    """check_guarded(obs, x, xbuf, obuf, where_zh, where_en): the guards, every element of out, x untouched."""

    def check(obs, x, xbuf, obuf, where_zh, where_en):
        check_accesses(obs, where_zh, where_en)
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
        holes = torch.nonzero(region == CANARY).reshape(-1)
        unwritten = int(holes.numel())
        written = dict(obs.get("written") or {})
        written["tail"] = unwritten > 0 and int(holes[0]) == n - unwritten  # only the last elements are missing
        written["first"] = int(holes[0]) if unwritten else 0
        assert unwritten == 0, msg(
            f"{where_zh}：out 有 {unwritten} 个元素没有被写到：{_unwritten_why_zh(written)}",
            f"{where_en}: {unwritten} elements of out were never written: {_unwritten_why_en(written)}",
        )
        region = region.view(out_shape(list(x.shape)))
        want_values = expected(x)
        ok, _worst = close(region, want_values, x.dtype)
        wrong = _bad_values(problem, region, want_values, x.dtype, where_zh, where_en, "out 的", "out")
        assert bool(ok.all()) and wrong is None, wrong
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
    """check_opcheck(obs, name, args): every test of torch.library.opcheck, decided here (judge.checker.opchecks)
    from what the probe observed on args, passed, and no kernel it ran misbehaved."""

    def check(obs, name, args, why=None):
        """why: an explanation to put first (a msg()), when the way the operators were registered explains it."""
        check_accesses(obs, f"ex107::{name} 的 opcheck", f"opcheck of ex107::{name}")
        for test, status in opcheck_results(obs["data"], obs["schema"], args).items():
            check_accesses(
                {"driver": status if "active drivers" in status else ""}, f"opcheck {test}", f"opcheck {test}"
            )
            if why is not None:
                text = as_text(why)
                assert status == "SUCCESS", msg(
                    f"ex107::{name} 的 opcheck {test} 失败：{text.zh}（{status}）",
                    f"opcheck {test} of ex107::{name} failed: {text.en} ({status})",
                )
            assert status == "SUCCESS", msg(
                f"ex107::{name} 的 opcheck {test} 失败：{status}", f"opcheck {test} of ex107::{name} failed: {status}"
            )

    return check


TRITON_OP_HINT = msg(
    "你用 torch.library.triton_op 注册了算子：在 Triton 的解释器里（CPU 这一层），triton_op 的 kernel 不能在 meta / fake "
    "张量上运行（解释器要把数据复制到主机），所以 meta、torch.compile 和 opcheck 的检查都会失败。本题请用 "
    "torch.library.custom_op + register_fake（或 torch.library.Library）注册",
    "you registered the operators with torch.library.triton_op: under Triton's interpreter (the CPU tier) a "
    "triton_op's kernel cannot run on meta or fake tensors (the interpreter copies their data to the host), so "
    "the meta, torch.compile and opcheck checks fail. Register with torch.library.custom_op + register_fake "
    "(or torch.library.Library) in this exercise",
)


@pytest.fixture
def op_hint(probe):
    """op_hint(default): the hint for a failure on meta / fake tensors; triton_op under the interpreter gets its
    own explanation."""
    env = probe("environment", hint=msg("读取运行环境出错", "reading the worker's environment failed"))

    def pick(default):
        return TRITON_OP_HINT if env["interpret"] and env.get("triton_ops") else default  # default may be None

    return pick


@pytest.fixture
def on_cuda(probe):
    """For GPU-tier tests: the worker's kernels run compiled on a CUDA device, not in the interpreter."""
    env = probe("environment", hint=msg("读取运行环境出错", "reading the worker's environment failed"))
    assert env["device"] == "cuda", msg(
        "这一部分需要 CUDA GPU：判题进程里没有可用的 GPU", "this part needs a CUDA GPU: the judging worker has none"
    )
    return env
