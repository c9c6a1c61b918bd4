"""Fixtures for exercise 100 (checker side: never imports the learner's code).

The judge's plugin provides ``remote`` (the worker), ``probe`` (remote.call with the learner's
exceptions turned into a short failure message) and ``problem`` (problem.toml). Here: seeded
input builders, the expected values computed with plain torch math, and tolerances.
"""


import pytest
import torch


@pytest.fixture(scope="session")
def tol(problem):
    """tol(dtype) -> (rtol, atol) from problem.toml."""

    def get(dtype):
        name = str(dtype).removeprefix("torch.")
        t = problem.tolerances[name]
        return float(t.rtol), float(t.atol)

    return get


@pytest.fixture(scope="session")
def close(tol):
    """close(actual, expected, dtype, relative_to_max=False) -> (ok, worst): elementwise
    |a-e| <= atol + rtol*|e| computed in float64, or, with relative_to_max,
    |a-e| <= atol + rtol*max|e| (rtol scaled by the largest expected element of the tensor);
    worst is the largest |a-e|."""

    def check(actual, expected, dtype, relative_to_max=False):
        rtol, atol = tol(dtype)
        a, e = actual.double(), expected.double()
        if a.shape != e.shape:
            return False, float("inf")
        diff = (a - e).abs()
        scale = e.abs()
        if relative_to_max and scale.numel():
            scale = scale.max()
        ok = bool(torch.all(diff <= atol + rtol * scale)) and not bool(torch.isnan(a).any())
        return ok, (float(diff.max()) if diff.numel() else 0.0)

    return check


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
        x = x.double().requires_grad_(True)
        w = weight.double().requires_grad_(True)
        _rms_formula(x, w, eps).backward(grad_out.double())
        return x.grad.detach(), w.grad.detach()

    return compute


# ---------------------------------------------------------------- shared checks
# Each returns nothing and fails with a short Chinese message (only its first line is shown).

@pytest.fixture(scope="session")
def check_kv(kv_expected):
    """check_kv(obs, inputs, where): the caches in ``obs`` hold exactly the expected rows."""

    def check(obs, inputs, where, compiled=False):
        k_cache, v_cache, slots, k, v = inputs
        want = dict(zip(("k_cache", "v_cache"), kv_expected(*inputs)))
        before = {"k_cache": k_cache, "v_cache": v_cache}
        for name in ("k_cache", "v_cache"):
            if not obs.get("same_memory", {}).get(name, True):
                pytest.fail(f"{where}：{name} 换了一块存储（.data = ... 或 set_(...)），而不是写进它原来的"
                            f"内存：与它共享内存的其他视图（比如它所在的整块缓冲区）看不到这次写入。"
                            f"要原地写入（index_copy_ 或下标赋值）", pytrace=False)
            got = obs[name]
            assert got.shape == want[name].shape and got.dtype == want[name].dtype, (
                f"{where}：{name} 的形状或 dtype 变了")
            if torch.equal(got, before[name]):
                if compiled:
                    pytest.fail(f"{where}：{name} 没有被写入。函数化（functionalization）只保留 "
                                f"schema 声明过的修改：检查 mutates_args 是否包含 {name}，"
                                f"以及实现是否原地写入了它", pytrace=False)
                pytest.fail(f"{where}：{name} 没有被修改。要原地写入传进来的张量"
                            f"（index_copy_ 或下标赋值），不能只把新张量赋给局部变量",
                            pytrace=False)
            written = torch.zeros(got.shape[0], dtype=torch.bool)
            written[slots] = True
            src = k if name == "k_cache" else v
            for i, s in enumerate(slots.tolist()):
                assert torch.equal(got[s], src[i]), (
                    f"{where}：{name}[{s}] 应该等于 {'k' if name == 'k_cache' else 'v'}[{i}]"
                    f"（slots[{i}] = {s}）")
            assert torch.equal(got[~written], before[name][~written]), (
                f"{where}：{name} 中不在 slots 里的行被改动了")

    return check


@pytest.fixture(scope="session")
def check_opcheck():
    """check_opcheck(result, op): every opcheck test reports SUCCESS."""
    hints = {
        "test_schema": "实现修改的参数与 schema 声明的不一致，或输出与输入共享内存",
        "test_autograd_registration": "autograd 注册有问题",
        "test_faketensor": "fake 实现与真实实现给出的形状/dtype/设备不一致，或 fake 实现读了数据",
        "test_aot_dispatch_dynamic": "在 AOTAutograd（torch.compile 的前向/反向图）里跑不通",
    }

    def check(result, op):
        for name, status in result.items():
            assert status == "SUCCESS", (
                f"opcheck({op}) 的 {name} 失败（{hints.get(name, '')}）：{status}")

    return check


@pytest.fixture(scope="session")
def check_rms_out(close):
    """check_rms_out(out, expected, x, where): shape, dtype and values of an rms_norm output."""

    def check(out, expected, x, where):
        assert out is not None, f"{where}：rms_norm 没有返回张量"
        assert out.dtype == x.dtype, (
            f"{where}：输出 dtype 是 {out.dtype}，应与 x 相同（{x.dtype}）")
        assert list(out.shape) == list(x.shape), (
            f"{where}：输出形状是 {list(out.shape)}，应与 x 相同（{list(x.shape)}）")
        ok, worst = close(out, expected, x.dtype)
        assert ok, f"{where}：输出数值不对（最大误差 {worst:.3g}）"

    return check


@pytest.fixture(scope="session")
def check_grads(close):
    """check_grads(obs, expected_dx, expected_dw, dtype, where).

    bfloat16 gradients are compared with rtol scaled by the largest expected element of each
    gradient: a backward computed natively in bfloat16 (allowed) rounds every term of its sums
    (over the rows for weight, over D for x), so an element that is a small sum of large terms
    keeps an error of the size of those terms, not of its own size."""

    def check(obs, dx, dw, dtype, where):
        assert obs.get("out_requires_grad", True), (
            f"{where}：输出不需要梯度——反向要用 torch.library.register_autograd 注册在算子上")
        assert obs["x_grad"] is not None, f"{where}：x 没有得到梯度"
        assert obs["weight_grad"] is not None, (
            f"{where}：weight 没有得到梯度（反向给 weight 返回了 None？）")
        for name, got, want in (("x", obs["x_grad"], dx), ("weight", obs["weight_grad"], dw)):
            assert list(got.shape) == list(want.shape), (
                f"{where}：{name} 的梯度形状是 {list(got.shape)}，应为 {list(want.shape)}")
            ok, worst = close(got, want, dtype, relative_to_max=(dtype == torch.bfloat16))
            assert ok, f"{where}：{name} 的梯度不对（最大误差 {worst:.3g}）"

    return check
