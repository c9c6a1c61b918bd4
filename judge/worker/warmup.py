"""Imported once by the worker zygote (judge.runners.base.WORKER_PRELOAD): runs, in the warm parent, the first calls
whose costs every forked worker would otherwise pay again: a custom operator registered, called on fake tensors,
run under AOTAutograd and through torch.compile (aot_eager), with a backward.

Those first calls fill torch's lazily built tables (dispatch caches, the fake-tensor and AOT machinery's
singletons, Dynamo's and sympy's caches), which each fresh worker otherwise built in its first probe of the kind:
about 0.2 s each for three cases of exercise 100. Nothing of the warm-up is left for learner code to reach: its
operator lives in a private namespace no exercise uses, Dynamo is reset afterwards, and the warm-up keeps no
reference to what it made. Dynamo's guard-latency profiling, which only feeds a debug log, is turned off here too.
"""

from __future__ import annotations

import sys
import threading

import torch

from judge.worker import registrations


def _warm() -> None:
    from torch._dynamo import reset  # noqa: PLC0415
    from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: PLC0415

    from judge.worker.opobserve import opcheck_data  # noqa: PLC0415

    name = "_judge_warmup::scale"  # a private namespace no exercise uses

    @torch.library.custom_op(name, mutates_args=())
    def scale(x: torch.Tensor, factor: float = 2.0) -> torch.Tensor:
        return x * factor

    @scale.register_fake
    def _(x, factor=2.0):
        return torch.empty_like(x)

    def backward(ctx, grad):
        return grad * ctx.factor, None

    def setup(ctx, inputs, output):
        ctx.factor = inputs[1]

    scale.register_autograd(backward, setup_context=setup)
    op = torch.ops._judge_warmup.scale.default
    x = torch.randn(4, 6, dtype=torch.float64)
    opcheck_data(op, (x, 3.0), grad=(0,))  # eager, fake, autograd kernels, AOTAutograd with dynamic shapes
    with FakeTensorMode() as mode:
        op(mode.from_tensor(x), 2.0)
    compiled = torch.compile(lambda t: op(t, 2.0) + 1, fullgraph=True, backend="aot_eager", dynamic=False)
    y = x.clone().requires_grad_(True)
    compiled(y).sum().backward()
    reset()  # Dynamo keeps nothing of the warm-up's compile
    _warm_in_place()


def _warm_in_place() -> None:
    """An operator that writes into two of its arguments, as a KV cache's write does, through AOTAutograd with
    dynamic shapes (opcheck's test_aot_dispatch_dynamic, judge.worker.opobserve.aot): two caches (rows, heads,
    width), the rows' indices, the rows. What it does is beside the point (it adds one to the caches); its layout
    is not. AOTAutograd clones the mutated inputs with symbolic sizes and strides, and sympy works out each new
    expression's assumptions once and caches them on the expression, which is the same object for the same
    symbols (s0, s1, ... in the order of the inputs' sizes): a worker's operator of that layout then finds them
    cached. That is about 135 thousand of the Python calls of a fresh worker's first opcheck of exercise 100's
    kv_write (bench/overhead.py), for 0.1 s here. Not compiled: a compile's first-call cost is Dynamo tracing
    the probe's own function, which no warm-up reaches."""
    from judge.worker.opobserve import aot  # noqa: PLC0415

    @torch.library.custom_op("_judge_warmup::add_rows", mutates_args=("a", "b"))
    def add_rows(a: torch.Tensor, b: torch.Tensor, index: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> None:
        a.add_(1)
        b.add_(1)

    @add_rows.register_fake
    def _(a, b, index, x, y):
        return None

    f64 = torch.float64
    caches = (torch.zeros(10, 3, 3, dtype=f64), torch.zeros(10, 3, 3, dtype=f64))
    rows = (torch.randn(4, 3, 3, dtype=f64), torch.randn(4, 3, 3, dtype=f64))
    aot(torch.ops._judge_warmup.add_rows.default, (*caches, torch.tensor([1, 5, 7, 2]), *rows), ())


def _lazy_kernels() -> None:
    """Kernels torch registers for its own operators only on first use: vmap's batching decompositions (aten's
    loss backwards, addr...). A worker refuses a registration on aten while learner code is on the stack
    (judge.worker.registrations), and a learner's kernel may well be the first to vmap: registered here, once."""
    from torch._functorch.predispatch import lazy_load_decompositions  # noqa: PLC0415

    lazy_load_decompositions()


def _no_guard_latency_profile() -> None:
    """Dynamo times each new guard set once (guards.profile_guard_manager) for a debug log the judge never reads.
    To time it, it first flushes the CPU cache (torch's own comment calls that expensive): about 20 ms of a fresh
    worker's first torch.compile (bench/overhead.py). Every forked worker inherits the stand-in from the zygote."""
    guards = sys.modules.get("torch._dynamo.guards")
    if guards is not None and hasattr(guards, "profile_guard_manager"):
        setattr(guards, "profile_guard_manager", lambda *args, **kwargs: 0.0)  # noqa: B010 - the latency it logged


def _no_threads_left() -> None:
    """A zygote forks workers: it must hold no thread but its own. A compile makes a progress bar, whose tqdm starts
    its monitor thread: stop it (a worker refuses threads anyway, and tqdm starts a new monitor where one is needed)."""
    tqdm = sys.modules.get("tqdm")
    monitor = getattr(getattr(tqdm, "tqdm", None), "monitor", None)
    if monitor is not None:
        monitor.exit()
        tqdm.tqdm.monitor = None  # type: ignore[union-attr]
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    for thread in others:
        thread.join(timeout=5)


_no_guard_latency_profile()
try:
    _lazy_kernels()
    _warm()
except Exception:  # noqa: BLE001 - a warm-up that fails costs speed, never a judgement
    pass
finally:
    _no_threads_left()
    registrations.settle()  # the dispatcher's table as the warm-up leaves it: what every worker compares with
