"""Fixtures for exercise 100 (checker side: never imports the learner's code).

The judge's plugin provides ``remote`` (the worker), ``probe`` (remote.call with the learner's
exceptions turned into a short failure message) and ``problem`` (problem.toml). Here: seeded
input builders, the expected values computed with plain torch math, and tolerances.
"""

import re

import pytest
import torch

from judge.checker import gradchecks
from judge.checker.opchecks import opcheck_results
from judge.report.feedback import compare, msg


@pytest.fixture(scope="session")
def tol(problem):
    """tol(dtype) -> (rtol, atol) from problem.toml."""

    def get(dtype):
        name = str(dtype).removeprefix("torch.")
        t = problem.tolerances[name]
        return float(t.rtol), float(t.atol)

    return get


# ---------------------------------------------------------------- causes


# torch turns a backward's result that is not a tuple into one value (and appends None for its own
# metadata): a list of three gradients arrives as 2 of the 4 it expects. Only that case gets "got 2".
ONE_VALUE = "incorrect number of gradients (expected 4, got 2)"


def backward_returned_one_value(list_lines):
    """The cause for ONE_VALUE, with the line where the source's backward returns a list when it does (the
    judge's probe fixture puts it after the message; judge.problem.backwards finds it)."""
    if list_lines:
        return (
            ONE_VALUE,
            msg(
                "反向返回的是列表，不是元组：torch 把列表当作一个值，于是只数出 1 个梯度。"
                "把 [...] 改成 (...)：return grad_x, grad_weight, None",
                "the backward returns a list, not a tuple: torch counts a list as one value, so it finds one "
                "gradient. Write (...) for [...]: return grad_x, grad_weight, None",
            ),
            list_lines[0],
        )
    return (
        ONE_VALUE,
        msg(
            "反向只返回了一个值（列表或单个张量），不是元组：torch 把它当作一个梯度。"
            "要返回元组：return grad_x, grad_weight, None",
            "the backward returns one value (a list, or a single tensor), not a tuple: torch counts it as one "
            "gradient. Return a tuple: return grad_x, grad_weight, None",
        ),
    )


@pytest.fixture(scope="session")
def probe_causes(backward_list_lines):
    """What the learner's code raised -> the cause, for the traps the statement warns about (the judge's probe
    fixture puts the first match in place of a test's general hint)."""
    return [
        backward_returned_one_value(backward_list_lines),
        (
            "missing 1 required positional argument: 'eps'",
            msg(
                "fake 实现（或内核）缺少 eps 的默认值：调用时等于默认值的参数会被 PyTorch 省略，"
                "所以它要和算子一样写成 eps=1e-6",
                "the fake (or the kernel) lacks eps's default: PyTorch leaves out an argument equal to its default "
                "when it calls them, so give it the operator's default (eps=1e-6)",
            ),
        ),
    ]


# ---------------------------------------------------------------- inputs


@pytest.fixture(scope="session")
def make_kv():
    """make_kv(seed, n, trailing, num_slots, dtype) -> (k_cache, v_cache, slots, k, v).

    Caches start with random values (so rows that must stay untouched are checkable); slots
    are distinct, in range, int64, in random order."""

    def build(seed, n, trailing, num_slots, dtype):
        g = torch.Generator().manual_seed(seed)
        trailing = tuple(trailing)
        k_cache = torch.randn(n, *trailing, generator=g, dtype=torch.float64).to(dtype)
        v_cache = torch.randn(n, *trailing, generator=g, dtype=torch.float64).to(dtype)
        slots = torch.randperm(n, generator=g)[:num_slots].to(torch.int64)
        k = torch.randn(num_slots, *trailing, generator=g, dtype=torch.float64).to(dtype)
        v = torch.randn(num_slots, *trailing, generator=g, dtype=torch.float64).to(dtype)
        return k_cache, v_cache, slots, k, v

    return build


@pytest.fixture(scope="session")
def make_rms():
    """make_rms(seed, shape, dtype, scale=1.0) -> (x, weight, grad_out)."""

    def build(seed, shape, dtype, scale=1.0):
        g = torch.Generator().manual_seed(seed)
        x = (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)
        weight = (1.0 + 0.5 * torch.randn(shape[-1], generator=g, dtype=torch.float64)).to(dtype)
        grad_out = torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
        return x, weight, grad_out

    return build


# ---------------------------------------------------------------- expected values


def _rms_formula(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


@pytest.fixture(scope="session")
def kv_expected():
    """kv_expected(k_cache, v_cache, slots, k, v) -> (k_cache', v_cache') after the write."""

    def compute(k_cache, v_cache, slots, k, v):
        kc, vc = k_cache.clone(), v_cache.clone()
        kc[slots] = k
        vc[slots] = v
        return kc, vc

    return compute


@pytest.fixture(scope="session")
def rms_expected():
    """rms_expected(x, weight, eps) -> the output computed in float64."""

    def compute(x, weight, eps):
        return _rms_formula(x.double(), weight.double(), eps)

    return compute


@pytest.fixture(scope="session")
def rms_expected_grads():
    """rms_expected_grads(x, weight, eps, grad_out) -> (dx, dweight) in float64, by autograd
    through the plain formula."""

    def compute(x, weight, eps, grad_out):
        x = x.detach().double().clone().requires_grad_(True)  # a copy: .double() of a float64 tensor is itself
        w = weight.detach().double().clone().requires_grad_(True)
        _rms_formula(x, w, eps).backward(grad_out.double())
        return x.grad.detach(), w.grad.detach()

    return compute


# ---------------------------------------------------------------- shared checks
# Each returns nothing and fails with one message in both languages. ``where`` is a (zh, en)
# pair naming what was checked, e.g. ("eager 调用 kv_write 后", "after an eager call of kv_write").


def fail(where, zh, en):
    """Fail the case with ``where`` in front of the message."""
    pytest.fail(msg(f"{where[0]}：{zh}", f"{where[1]}: {en}"), pytrace=False)


def expect(ok, where, zh, en):
    if not ok:
        fail(where, zh, en)


@pytest.fixture(scope="session")
def check_kv(kv_expected):
    """check_kv(obs, inputs, where, compiled=False): the caches in ``obs`` hold exactly the expected rows."""

    def check(obs, inputs, where, compiled=False):
        k_cache, v_cache, slots, k, v = inputs
        want = dict(zip(("k_cache", "v_cache"), kv_expected(*inputs)))
        _check_inputs_unwritten(obs, where)
        for name, before, src, rows in (("k_cache", k_cache, "k", k), ("v_cache", v_cache, "v", v)):
            _check_same_memory(obs, name, where)
            got = obs[name]
            expect(
                got.shape == want[name].shape and got.dtype == want[name].dtype,
                where,
                f"{name} 的形状或 dtype 变了",
                f"the shape or dtype of {name} changed",
            )
            if torch.equal(got, before):
                _fail_unwritten(name, where, compiled)
            written = torch.zeros(got.shape[0], dtype=torch.bool)
            written[slots] = True
            for i, s in enumerate(slots.tolist()):
                expect(
                    torch.equal(got[s], rows[i]),
                    where,
                    f"{name}[{s}] 应该等于 {src}[{i}]（slots[{i}] = {s}）",
                    f"{name}[{s}] should equal {src}[{i}] (slots[{i}] = {s})",
                )
            expect(
                torch.equal(got[~written], before[~written]),
                where,
                f"{name} 中不在 slots 里的行被改动了",
                f"rows of {name} that are not in slots were changed",
            )

    return check


def _check_inputs_unwritten(obs, where):
    for name in ("slots", "k", "v"):
        expect(
            not obs.get("written", {}).get(name),
            where,
            f"kv_write 原地写了 {name}（哪怕之后又把值改了回去）：它只能写 k_cache 和 v_cache。不要写 {name}，"
            f"需要中间结果时另建张量",
            f"kv_write wrote {name} in place (even if it put the values back afterwards): the only arguments it may "
            f"write are k_cache and v_cache. Do not write {name}; make a new tensor for anything in between",
        )


def _check_same_memory(obs, name, where):
    expect(
        obs.get("same_memory", {}).get(name, True),
        where,
        f"{name} 换了一块存储（.data = ... 或 set_(...)），而不是写进它原来的内存：与它共享内存的其他视图"
        f"（比如它所在的整块缓冲区）看不到这次写入。要原地写入（index_copy_ 或下标赋值）",
        f"{name} was given new storage (.data = ... or set_(...)) instead of being written in its own memory, "
        f"so the other views of that memory (such as the buffer it belongs to) do not see the write. "
        f"Write in place (index_copy_ or indexing assignment)",
    )


def _fail_unwritten(name, where, compiled):
    if compiled:
        fail(
            where,
            f"{name} 没有被写入。函数化（functionalization）只保留 schema 声明过的修改："
            f"检查 mutates_args 是否包含 {name}，以及实现是否原地写入了它",
            f"{name} was not written. Functionalization keeps only the mutations the schema declares: "
            f"check that mutates_args lists {name} and that the implementation writes it in place",
        )
    fail(
        where,
        f"{name} 没有被修改。要原地写入传进来的张量（index_copy_ 或下标赋值），不能只把新张量赋给局部变量",
        f"{name} was not modified. Write into the tensor that was passed in (index_copy_ or indexing "
        f"assignment); binding a new tensor to a local name changes nothing for the caller",
    )


# What opcheck found, in the chapter's terms: (operator or None, opcheck test or None, text in
# torch's message or None) -> (zh, en). The first matching rule wins. torch's own advice can
# mislead: for kv_write, "no fake impl registered" means mutates_args is wrong, since custom_op
# provides the fake itself for an operator that only mutates its inputs and returns None.
OPCHECK_LESSONS = [
    (
        "kv_write",
        None,
        "no fake impl registered",
        (
            '要改的是 mutates_args，不是照 torch 的提示写 register_fake：声明 mutates_args=("k_cache", "v_cache") 后，'
            "custom_op 会为只原地修改输入、返回 None 的算子自动提供 fake 实现",
            'fix mutates_args rather than adding the register_fake torch suggests: once mutates_args=("k_cache", '
            '"v_cache"), custom_op itself provides the fake of an operator that only mutates its inputs and returns None',
        ),
    ),
    (
        None,
        None,
        "values put back",
        (
            "算子原地写了一个没有声明为被修改的参数，又把值改了回去：不要写它（也不要因此把它加进 mutates_args）",
            "the operator writes an argument its schema does not declare mutated, then puts the values back: do not "
            "write it at all (and do not add it to mutates_args for that)",
        ),
    ),
    (
        "kv_write",
        None,
        "not defined as mutable but was mutated",
        (
            '实现原地修改了 schema 没有声明为被修改的参数：mutates_args 要恰好是 ("k_cache", "v_cache")',
            "the implementation mutates an argument the schema does not declare as mutated: mutates_args must be "
            'exactly ("k_cache", "v_cache")',
        ),
    ),
    (
        "rms_norm",
        None,
        "not defined as mutable but was mutated",
        (
            "rms_norm 修改了输入：前向、setup_context 和反向都不能修改 x 或 weight",
            "rms_norm modified an input: neither the forward, nor setup_context, nor the backward may modify x or weight",
        ),
    ),
    (
        None,
        None,
        "NotImplementedError",
        ("算子抛出了 NotImplementedError：先实现它", "the operator raised NotImplementedError: implement it first"),
    ),
    (
        None,
        None,
        "no fake impl registered",
        (
            "没有 fake 实现：用 @rms_norm.register_fake 注册一个只看输入元数据的函数（例如返回 torch.empty_like(x)）",
            "no fake implementation: register one with @rms_norm.register_fake that looks only at the inputs' "
            "metadata (for example, returns torch.empty_like(x))",
        ),
    ),
    (
        None,
        None,
        "data-dependent",
        (
            "fake 实现读了数据（.item()、.tolist()、按张量的值分支），而 fake tensor 没有数据，只能用形状、dtype、设备",
            "the fake implementation reads data (.item(), .tolist(), a branch on a tensor's values), but fake tensors "
            "have no data: a fake may use only shapes, dtypes and devices",
        ),
    ),
    (
        None,
        None,
        "must not also be an input",
        (
            "输出是输入本身或它的视图：rms_norm 要返回一个新张量",
            "the output is an input or a view of one: rms_norm must return a new tensor",
        ),
    ),
    (
        None,
        None,
        "MetadataMismatchError",
        (
            "fake 实现和真实实现的输出元数据不一致：fake 要如实描述内核的输出（形状、步长、dtype、设备），"
            "内核返回与 x 同样的张量时用 torch.empty_like(x)",
            "the fake and the real implementation disagree on the output's metadata: the fake must describe the "
            "kernel's output exactly (shape, strides, dtype, device); torch.empty_like(x) when the kernel returns a "
            "tensor like x",
        ),
    ),
    (
        None,
        None,
        "no autograd formula was registered",
        (
            "算子本身没有反向：要用 register_autograd 注册在算子上，包在外面的 torch.autograd.Function 不算",
            "the operator itself has no backward: register one on it with register_autograd; a torch.autograd.Function "
            "wrapped around the call does not count",
        ),
    ),
    (
        None,
        None,
        ONE_VALUE,
        (
            "反向返回的不是元组（例如列表）：torch 把它当作一个梯度；要返回元组 (grad_x, grad_weight, None)",
            "the backward returns something other than a tuple (a list?): torch counts it as one gradient; return "
            "the tuple (grad_x, grad_weight, None)",
        ),
    ),
    (
        None,
        None,
        "incorrect number of gradients",
        (
            "反向返回的梯度个数不对：要返回元组 (grad_x, grad_weight, None)，eps 对应 None",
            "the backward returns the wrong number of gradients: return the tuple (grad_x, grad_weight, None), "
            "None for eps",
        ),
    ),
    (
        None,
        "test_schema",
        None,
        (
            "这一项运行算子，比较它实际修改、别名的参数与 schema 的声明",
            "this test runs the operator and compares what it mutates and aliases with what the schema declares",
        ),
    ),
    (
        None,
        "test_autograd_registration",
        None,
        (
            "这一项检查反向是否用 register_autograd 注册在算子上",
            "this test checks that the backward is registered on the operator with register_autograd",
        ),
    ),
    (
        None,
        "test_faketensor",
        None,
        (
            "这一项比较 fake 实现与真实实现的输出形状、dtype、设备，fake 实现不能读数据",
            "this test compares the output shape, dtype and device of the fake and the real implementation; "
            "the fake must not read data",
        ),
    ),
    (
        None,
        "test_aot_dispatch_dynamic",
        None,
        (
            "这一项在 AOTAutograd（torch.compile 的前向、反向图）里运行算子：检查 fake 实现和 register_autograd 注册的反向",
            "this test runs the operator under AOTAutograd (torch.compile's forward and backward graphs): check the "
            "fake implementation and the backward registered with register_autograd",
        ),
    ),
]


def opcheck_lesson(op, test, status):
    """The chapter's lesson for one failed opcheck test, as (zh, en)."""
    for rule_op, rule_test, text, lesson in OPCHECK_LESSONS:
        if rule_op in (None, op) and rule_test in (None, test) and (text is None or text in status):
            return lesson
    return ("见 torch 的原文", "see torch's own message")


# opcheck's test_faketensor names the operator in a long preamble before what differs: the operator is named already.
_METADATA_PREAMBLE = re.compile(
    r"^MetadataMismatchError: When comparing the output of \S+ on FakeTensor and concrete Tensors, found "
)


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result, op, sent, grad=()): each of opcheck's tests, decided here from what the probe
    observed (judge.checker.opchecks) on the arguments ``sent``, passes; a failure names the lesson first."""

    def check(result, op, sent, grad=()):
        for name, status in opcheck_results(result["data"], result["schema"], sent, grad).items():
            if status != "SUCCESS":
                zh, en = opcheck_lesson(op, name, status)
                status = _METADATA_PREAMBLE.sub("MetadataMismatchError: ", status)
                # One sentence, lesson first, then what was found (the checker's own finding names the argument
                # or field; a message of the learner's code is its first line): the report keeps it whole.
                pytest.fail(
                    msg(
                        f"opcheck({op}) 的 {name} 失败：{zh}（{status}）",
                        f"opcheck({op}): {name} failed: {en} ({status})",
                    ),
                    pytrace=False,
                )

    return check


@pytest.fixture(scope="session")
def check_rms_out(tol):
    """check_rms_out(out, expected, x, where): shape, dtype and values of an rms_norm output."""

    def check(out, expected, x, where):
        expect(out is not None, where, "rms_norm 没有返回张量", "rms_norm did not return a tensor")
        expect(
            out.dtype == x.dtype,
            where,
            f"输出 dtype 是 {out.dtype}，应与 x 相同（{x.dtype}）",
            f"the output dtype is {out.dtype}; it must be x's dtype ({x.dtype})",
        )
        expect(
            list(out.shape) == list(x.shape),
            where,
            f"输出形状是 {list(out.shape)}，应与 x 相同（{list(x.shape)}）",
            f"the output shape is {list(out.shape)}; it must be x's shape ({list(x.shape)})",
        )
        rtol, atol = tol(x.dtype)
        wrong = compare(out, expected, rtol=rtol, atol=atol)
        if wrong is not None:
            formula = "x * rsqrt(mean(x², dim=-1, keepdim=True) + eps) * weight"
            fail(where, f"输出{wrong.zh}，应为 {formula}", f"output: {wrong.en}; expected {formula}")

    return check


@pytest.fixture(scope="session")
def check_rms_meta():
    """check_rms_meta(obs, shape, dtype): rms_norm on meta tensors gave a meta tensor of x's shape and dtype."""

    def check(obs, shape, dtype):
        shape = list(shape)
        if not obs["is_tensor"]:
            pytest.fail(
                msg("rms_norm 在 meta 设备上应返回一个张量", "on the meta device rms_norm must return a tensor"),
                pytrace=False,
            )
        where = ("meta 设备上", "on the meta device")
        expect(
            obs["device"] == "meta",
            where,
            f"输出在 {obs['device']} 上：fake 实现要沿用输入的设备（例如 torch.empty_like(x)）",
            f"the output is on {obs['device']}: the fake must keep the inputs' device (for example torch.empty_like(x))",
        )
        expect(
            obs["shape"] == shape,
            where,
            f"输出形状是 {obs['shape']}，应为 {shape}",
            f"the output shape is {obs['shape']}; it should be {shape}",
        )
        expect(
            obs["dtype"] == str(dtype),
            where,
            f"输出 dtype 是 {obs['dtype']}，应为 {dtype}",
            f"the output dtype is {obs['dtype']}; it should be {dtype}",
        )

    return check


@pytest.fixture(scope="session")
def check_grads(tol):
    """check_grads(obs, expected_dx, expected_dw, dtype, where).

    bfloat16 gradients are compared with rtol scaled by the largest expected element of each
    gradient: a backward computed natively in bfloat16 (allowed) rounds every term of its sums
    (over the rows for weight, over D for x), so an element that is a small sum of large terms
    keeps an error of the size of those terms, not of its own size."""

    def check(obs, dx, dw, dtype, where):
        expect(
            obs.get("out_requires_grad", True),
            where,
            "输出不需要梯度：反向要用 torch.library.register_autograd 注册在算子上",
            "the output does not require grad: register the backward on the operator with "
            "torch.library.register_autograd",
        )
        expect(obs["x_grad"] is not None, where, "x 没有得到梯度", "x got no gradient")
        expect(
            obs["weight_grad"] is not None,
            where,
            "weight 没有得到梯度（反向给 weight 返回了 None？）",
            "weight got no gradient (does the backward return None for weight?)",
        )
        for name, got, want in (("x", obs["x_grad"], dx), ("weight", obs["weight_grad"], dw)):
            expect(
                list(got.shape) == list(want.shape),
                where,
                f"{name} 的梯度形状是 {list(got.shape)}，应为 {list(want.shape)}",
                f"the gradient of {name} has shape {list(got.shape)}; it should be {list(want.shape)}",
            )
            rtol, atol = tol(dtype)
            wrong = compare(got, want, rtol=rtol, atol=atol, relative_to_max=(dtype == torch.bfloat16))
            if wrong is not None:
                fail(where, f"{name} 的梯度{wrong.zh}", f"the gradient of {name}: {wrong.en}")

    return check


@pytest.fixture(scope="session")
def inputs_unchanged():
    """inputs_unchanged(obs, x, weight): the inputs a probe returned after the call equal what was sent."""

    def check(obs, x, weight):
        if any(obs.get("written", {}).values()):  # a write that put the values back is still a write
            return False
        for got, sent in ((obs.get("x_after"), x), (obs.get("weight_after"), weight)):
            if got is not None and not (got.shape == sent.shape and torch.equal(got, sent)):
                return False
        return True

    return check


@pytest.fixture(scope="session")
def gradcheck_plan():
    """gradcheck_plan(x, weight, seed) -> (grad_outs, directions, points) for the gradcheck probe
    (judge.checker.gradchecks: the backward's vector-Jacobian product against the forward's finite differences)."""

    def make(x, weight, seed):
        v, directions, points = gradchecks.plan({"x": x, "weight": weight}, x.shape, seed)
        return [v], directions, points

    return make


@pytest.fixture(scope="session")
def check_gradcheck():
    """check_gradcheck(obs, grad_outs, directions, (x, weight)): the inputs are left alone, and for each input the
    backward agrees with the forward's finite differences within gradcheck's tolerances."""

    def check(obs, grad_outs, directions, sent):
        where = ("gradcheck（float64）", "gradcheck (float64)")
        expect(
            obs["out_requires_grad"],
            where,
            "输出不需要梯度：反向要用 torch.library.register_autograd 注册在算子上",
            "the output does not require grad: register the backward on the operator with "
            "torch.library.register_autograd",
        )
        for name, before in zip(("x", "weight"), sent):
            after = obs["grads"][0][f"{name}_after"]
            expect(
                (after is None or torch.equal(after, before)) and not obs["grads"][0]["written"][name],
                where,
                f"前向 + 反向改动了 {name}：gradcheck 在它传入的输入处求差分，算子（包括 setup_context 和反向）不能修改输入",
                f"the forward and backward changed {name}: gradcheck takes its finite differences at the inputs it "
                f"passed, so the operator (setup_context and the backward included) must not modify them",
            )
        grads = {name: obs["grads"][0][f"{name}_grad"] for name in directions}
        again = {name: obs["grads"][0]["again"][f"{name}_grad"] for name in directions}
        wrong = gradchecks.not_reentrant(grads, again) or gradchecks.disagreement(
            grad_outs[0], directions, grads, obs["forward"]
        )
        if wrong is not None:
            fail(where, *wrong)

    return check
