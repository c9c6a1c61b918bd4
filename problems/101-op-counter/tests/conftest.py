"""Fixtures for exercise 101 (checker side: never imports the learner's code).

The judge's plugin provides ``remote``, ``probe`` and ``problem`` (problem.toml). Here: seeded inputs,
and the expected counts: the checker runs the same programs (imported from probes.py, the
problem's own file) under its own TorchDispatchMode on the installed torch. Nothing is
hard-coded: aten op names and the ops SDPA lowers to change between torch versions.
"""

import collections
import importlib.util
import types
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from judge.report.feedback import compare, msg


def _load_programs():
    spec = importlib.util.spec_from_file_location("_ex101_probes", Path(__file__).with_name("probes.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBES = _load_programs()


# ---------------------------------------------------------------- expected counts


class _Count(TorchDispatchMode):
    """The checker's own counter."""

    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] += 1
        return func(*args, **(kwargs or {}))


def expected_program(name, inputs, grad=()):
    """(counts, outputs) of PROGRAMS[name] run once under the checker's own mode."""
    args = PROBES.prepare({k: v.clone() for k, v in inputs.items()}, grad)
    with _Count() as c:
        out = PROBES.PROGRAMS[name](**args)
    return dict(c.counts), [None if t is None else t.detach() for t in out]


def expected_sdpa(q, k, v, is_causal=False, backward=False):
    """(counts, grads) of the statement's computation under the checker's own mode."""
    q, k, v = (t.clone().requires_grad_(backward) for t in (q, k, v))
    with _Count() as c:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        if backward:
            out.sum().backward()
    return dict(c.counts), ([q.grad, k.grad, v.grad] if backward else None)


def add_counts(*many):
    total = collections.Counter()
    for counts in many:
        total.update(counts)
    return dict(total)


# ---------------------------------------------------------------- checks
# Each fails with one message in both languages. ``where`` is a (zh, en) pair naming what was
# counted, for example ("RMSNorm + Linear + SiLU", "RMSNorm + Linear + SiLU").


def fail(where, zh, en):
    raise AssertionError(msg(f"{where[0]}：{zh}", f"{where[1]}: {en}"))


def check_mapping(obs, where, what=("counts", "counts")):
    """obs is probes._read_counts output: a mapping from str to int, else a failure naming why."""
    if not obs["has_counts"]:
        fail(
            where,
            "OpCounter 没有 counts 属性（在 __init__ 里创建 self.counts）",
            "OpCounter has no counts attribute (create self.counts in __init__)",
        )
    if not obs["is_mapping"]:
        fail(
            where,
            f"{what[0]} 应是从 str 到 int 的映射（推荐 collections.Counter，dict 也可以），实际是 {obs['type']}",
            f"{what[1]} must be a mapping from str to int (collections.Counter is recommended; a dict works "
            f"too), not {obs['type']}",
        )
    if obs["bad"]:
        zh = "，".join(f"键 {b['key']}（{b['key_type']}）的值 {b['value']}（{b['value_type']}）" for b in obs["bad"])
        en = ", ".join(
            f"key {b['key']} ({b['key_type']}) with value {b['value']} ({b['value_type']})" for b in obs["bad"]
        )
        fail(
            where,
            f'counts 的键应是 str(func)（如 "aten.mm.default"），值应是 int：{zh}',
            f'the keys of counts must be str(func) (like "aten.mm.default") and the values ints: {en}',
        )


def check_counts(obs, expected, where):
    """The learner's counts (probes._read_counts output) equal ``expected`` ({str: int}); else a
    failure listing the first few differences, in the chapter's terms."""
    check_mapping(obs, where)
    got = obs["counts"]
    if got == expected:
        return
    diffs = [(name, n, got.get(name, 0)) for name, n in sorted(expected.items()) if got.get(name, 0) != n]
    diffs += [(name, 0, n) for name, n in sorted(got.items()) if name not in expected]
    more = len(diffs) - 3
    # One sentence (the report keeps a message's first sentence whole): no 。；in zh, no '. ' in en.
    zh = "，".join(f"{name} 计了 {m} 次而不是 {n} 次" for name, n, m in diffs[:3]) + (
        f"，另有 {more} 处不同" if more > 0 else ""
    )
    en = "; ".join(f"{name} counted {m} times instead of {n}" for name, n, m in diffs[:3]) + (
        f"; {more} more differences" if more > 0 else ""
    )
    if not got:
        fail(
            where,
            f"一个算子也没有计到（应有 {sum(expected.values())} 次 aten 调用）：{zh}",
            f"no operator was counted (there are {sum(expected.values())} aten calls): {en}",
        )
    odd = any(name not in expected and not (name.startswith("aten.") and name.count(".") == 2) for name in got)
    if odd:
        fail(
            where,
            f"计数不对（键应是 str(func)，形如 aten.mm.default）：{zh}",
            f"wrong counts (the keys must be str(func), like aten.mm.default): {en}",
        )
    fail(where, f"计数不对：{zh}", f"wrong counts: {en}")


def check_two_counters(obs, counts):
    """obs from probes.two_counters_in_a_row: the second counter starts empty, and each counts its own block."""
    if obs["second_fresh"]["counts"]:
        raise AssertionError(
            msg(
                "第二个 OpCounter 一创建 counts 就不为空：每个实例要有自己的计数（在 __init__ 里创建，不要用类属性或全局变量）",
                "the second OpCounter's counts are not empty when it is created: each instance needs counts of its "
                "own (create them in __init__, not as a class attribute or a global)",
            )
        )
    check_counts(obs["first"], counts, ("第一个 OpCounter", "the first OpCounter"))
    check_counts(obs["second"], counts, ("第二个 OpCounter", "the second OpCounter"))


@pytest.fixture(scope="session")
def tol(problem):
    def get(dtype):
        t = problem.tolerances[str(dtype).removeprefix("torch.")]
        return float(t.rtol), float(t.atol)

    return get


@pytest.fixture(scope="session")
def check_values(tol):
    """check_values(got_list, want_list, where): every tensor has the expected shape, dtype and
    values (the mode must hand back exactly what func returned)."""

    def check(got, want, where):
        if got is None or len(got) != len(want):
            fail(where, "程序没有正常返回结果", "the program did not return its results")
        for i, (g, w) in enumerate(zip(got, want)):
            if w is None:
                continue
            if g is None:
                fail(
                    where,
                    f"第 {i} 个结果不是张量（__torch_dispatch__ 要返回 func 的结果）",
                    f"result {i} is not a tensor (__torch_dispatch__ must return what func returned)",
                )
            if g.dtype != w.dtype or g.shape != w.shape:
                fail(
                    where,
                    f"第 {i} 个结果是 {g.dtype} {list(g.shape)}，应为 {w.dtype} {list(w.shape)}"
                    f"（调用 func 时要原样传入 args 和 kwargs）",
                    f"result {i} is {g.dtype} {list(g.shape)}, but should be {w.dtype} {list(w.shape)} "
                    f"(call func with args and kwargs exactly as given)",
                )
            rtol, atol = tol(w.dtype) if w.is_floating_point() else (0.0, 0.0)
            wrong = compare(g, w, rtol=rtol, atol=atol)
            if wrong is not None:
                fail(
                    where,
                    f"第 {i} 个结果{wrong.zh}（调用 func 时要原样传入 args 和 kwargs，并返回它的结果）",
                    f"result {i}: {wrong.en} (call func with args and kwargs exactly as given, and return its result)",
                )

    return check


@pytest.fixture(scope="session")
def check_sdpa(tol):
    """check_sdpa(obs, q, k, v, options, where): the counts of count_sdpa_ops equal the
    checker's, and with backward the gradients reached q, k and v."""

    def check(obs, q, k, v, options, where):
        is_causal, backward = bool(options.get("is_causal", False)), bool(options.get("backward", False))
        counts, grads = expected_sdpa(q, k, v, is_causal, backward)
        check_mapping(obs["counts"], where, ("count_sdpa_ops 的返回值", "the value count_sdpa_ops returns"))
        check_counts(obs["counts"], counts, where)
        if backward:
            rtol, atol = tol(q.dtype)
            for name, got, want in zip("qkv", obs["grads"], grads):
                if got is None:
                    fail(
                        where,
                        f"{name}.grad 是 None：out.sum().backward() 要在传入的 q, k, v 上运行",
                        f"{name}.grad is None: out.sum().backward() must run on the q, k, v passed in",
                    )
                wrong = compare(got, want, rtol=rtol, atol=atol)
                if wrong is not None:
                    fail(where, f"{name}.grad {wrong.zh}", f"{name}.grad: {wrong.en}")

    return check


# ---------------------------------------------------------------- inputs


def randn(g, *shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


def make_inputs(name, seed, dtype=torch.float32, batch=2, d=16, hidden=32, out=8):
    """Seeded keyword inputs for PROGRAMS[name]."""
    g = torch.Generator().manual_seed(seed)
    if name == "rmsnorm_linear_silu":
        return {
            "x": randn(g, batch, d, dtype=dtype),
            "w": 1 + 0.1 * randn(g, d, dtype=dtype),
            "lin": randn(g, hidden, d, dtype=dtype) / d**0.5,
        }
    if name in ("mlp", "mlp_backward"):
        return {
            "x": randn(g, batch, 3, d, dtype=dtype),
            "w1": randn(g, hidden, d, dtype=dtype) / d**0.5,
            "b1": randn(g, hidden, dtype=dtype),
            "w2": randn(g, out, hidden, dtype=dtype) / hidden**0.5,
            "b2": randn(g, out, dtype=dtype),
        }
    if name in ("keyword_ops", "inplace_and_views"):
        return {"x": randn(g, batch + 2, d, dtype=dtype)}
    raise KeyError(name)


MLP_GRAD = ("x", "w1", "b1", "w2", "b2")


def make_qkv(seed, batch, heads, q_len, kv_len, dim, v_dim=None, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    q = randn(g, batch, heads, q_len, dim, dtype=dtype)
    k = randn(g, batch, heads, kv_len, dim, dtype=dtype)
    v = randn(g, batch, heads, kv_len, v_dim or dim, dtype=dtype)
    return q, k, v


# ---------------------------------------------------------------- the helpers as fixtures
# (tests take them as fixtures rather than importing conftest)


@pytest.fixture(scope="session")
def ex():
    """The helpers above: ex.expected_program, ex.expected_sdpa, ex.add_counts, ex.check_counts,
    ex.check_mapping, ex.check_two_counters, ex.make_inputs, ex.make_qkv, ex.MLP_GRAD."""

    return types.SimpleNamespace(
        expected_program=expected_program,
        expected_sdpa=expected_sdpa,
        add_counts=add_counts,
        check_counts=check_counts,
        check_mapping=check_mapping,
        check_two_counters=check_two_counters,
        make_inputs=make_inputs,
        make_qkv=make_qkv,
        MLP_GRAD=MLP_GRAD,
    )
