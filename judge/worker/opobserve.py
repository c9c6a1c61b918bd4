"""What torch.library.opcheck and gradcheck look at, observed as plain data for the checker to compare.

The probes used to run opcheck and gradcheck in the worker and send back their verdicts ("SUCCESS"), so the
comparison ran in the submission's process, where a submission can reach it (rebind a module global the check
looks up at call time and put it back before the probe returns). Here each of opcheck's tests is split in two:
this module runs the operator the way the test does and returns what it saw (outputs, the arguments after the
call, the metadata of real and fake outputs, which storages they use, gradients eager and under AOTAutograd,
the dispatcher's kernels, or what was raised); `judge.checker.opchecks` compares it in the checker. Nothing here
compares, and nothing here is handed to learner code: the learner's operator is only called.
"""

from __future__ import annotations

from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from judge.worker.learner import is_out_of_memory

# Bound when the probes load, before the submission is imported: what a submission rebinds afterwards does not
# change what runs here. Metadata is read through TensorBase's own C methods, not a subclass's overrides.
_TensorBase = torch._C.TensorBase
_Tensor = torch.Tensor
_size, _stride, _offset = (_TensorBase.__dict__[k] for k in ("size", "stride", "storage_offset"))
_untyped_storage = _TensorBase.__dict__["untyped_storage"]
_has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
_get_fallback, _set_fallback = torch._C._get_autograd_fallback_mode, torch._C._set_autograd_fallback_mode
_grad = torch.autograd.grad
_enable_grad = torch.enable_grad
_AUTOGRAD_KEYS = ("AutogradCPU", "AutogradCUDA", "Autograd", "CompositeImplicitAutograd")
_OPCHECK_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def raised(exc: BaseException) -> dict[str, str]:
    """An exception as data (its type and text); an allocation the job's limit refused stays a memory error."""
    if is_out_of_memory(exc):
        raise exc
    return {"type": type(exc).__name__, "message": str(exc)[:2000]}


def _storage_id(t: Any) -> int:
    """An id of the storage a tensor uses, equal for tensors that share memory (fake ones included)."""
    return int(_untyped_storage(t)._cdata)


def _dim(d: Any) -> int | dict[str, str]:
    """A size or stride: an int, or {"symbolic": text} for a symbolic one (a fake's data-dependent size, "u0")."""
    return d if type(d) is int else {"symbolic": str(d)}


def meta(t: Any) -> dict[str, Any]:
    """A tensor's metadata, or the type of what is not a tensor."""
    if not isinstance(t, _Tensor):
        return {"is_tensor": False, "type": type(t).__name__}
    return {
        "is_tensor": True,
        "shape": [_dim(d) for d in _size(t)],
        "stride": [_dim(s) for s in _stride(t)],
        "storage_offset": _dim(_offset(t)),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
        "type": type(t).__name__,
    }


def plain(t: Any) -> torch.Tensor | None:
    """A plain CPU copy the channel carries, of a CPU or GPU tensor (None for anything else: no data)."""
    if not isinstance(t, _Tensor) or t.is_meta or isinstance(t, FakeTensor):
        return None
    return t.detach().as_subclass(_Tensor).to("cpu", copy=True).contiguous()


def _leaves(out: Any) -> list[Any]:
    if isinstance(out, tuple | list):
        return list(out)
    return [out]


def _copy(args: tuple[Any, ...], grad: tuple[int, ...] = ()) -> list[Any]:
    """Fresh copies of the tensor arguments, with their strides (requiring grad at the positions in `grad`)."""
    copies = []
    for i, a in enumerate(args):
        if isinstance(a, _Tensor):
            c = a.detach().clone()
            if i in grad:
                c.requires_grad_(True)
            a = c
        copies.append(a)
    return copies


def _outputs(out: Any, args: list[Any], values: bool = True) -> list[dict[str, Any]]:
    """Each output leaf: metadata, the value (a plain copy) and the argument whose storage it shares, if any."""
    arg_storages = {i: _storage_id(a) for i, a in enumerate(args) if isinstance(a, _Tensor)}
    found = []
    for leaf in _leaves(out):
        entry: dict[str, Any] = {"meta": meta(leaf)}
        if isinstance(leaf, _Tensor):
            sid = _storage_id(leaf)
            entry["aliases"] = [i for i, s in arg_storages.items() if s == sid]
            if values:
                entry["value"] = plain(leaf)
        found.append(entry)
    return found


def _arguments(args: list[Any], before: dict[int, int], values: bool = True) -> list[dict[str, Any] | None]:
    """Each tensor argument after the call: metadata, value, and whether it still uses the storage it had."""
    found: list[dict[str, Any] | None] = []
    for i, a in enumerate(args):
        if not isinstance(a, _Tensor):
            found.append(None)
            continue
        entry: dict[str, Any] = {"meta": meta(a), "same_storage": _storage_id(a) == before[i]}
        if values:
            entry["value"] = plain(a)
        found.append(entry)
    return found


def call(op: Any, args: tuple[Any, ...], grad: tuple[int, ...] = ()) -> dict[str, Any]:
    """Call `op` once on copies of `args`: its outputs and the arguments afterwards (what test_schema compares
    with the schema: which arguments were written, which outputs alias an input)."""
    copies = _copy(args, grad)
    before = {i: _storage_id(a) for i, a in enumerate(copies) if isinstance(a, _Tensor)}
    try:
        out = op(*copies)
    except Exception as exc:  # noqa: BLE001 - what the learner's operator raised is an observation
        return {"raised": raised(exc)}
    return {"returned": type(out).__name__, "out": _outputs(out, copies), "args": _arguments(copies, before)}


def fake(op: Any, args: tuple[Any, ...], grad: tuple[int, ...] = ()) -> dict[str, Any]:
    """The operator under FakeTensorMode on fake copies of `args` (static shapes, as test_faketensor makes them)
    and for real on copies: the metadata of both, for the checker to compare."""
    real = call(op, args, grad)
    copies = _copy(args, grad)  # outside the mode: it refuses real tensors made inside it
    try:
        with FakeTensorMode(shape_env=ShapeEnv()) as mode:
            fakes = [mode.from_tensor(a, static_shapes=True) if isinstance(a, _Tensor) else a for a in copies]
            before = {i: _storage_id(a) for i, a in enumerate(fakes) if isinstance(a, _Tensor)}
            out = op(*fakes)
            seen: dict[str, Any] = {"returned": type(out).__name__, "out": _outputs(out, fakes, False)}
            seen["args"] = _arguments(fakes, before, False)
    except Exception as exc:  # noqa: BLE001
        seen = {"raised": raised(exc)}
    return {"real": real, "fake": seen}


def _sum_abs(out: Any) -> Any:
    total: Any = 0
    for leaf in _leaves(out):
        if isinstance(leaf, _Tensor):
            total = total + leaf.sum().abs()
    return total


def _forward_backward(fn: Any, args: tuple[Any, ...], grad: tuple[int, ...]) -> dict[str, Any]:
    """fn on copies of args, then the gradients of sum(|sum(output)|) for the arguments in `grad`."""
    copies = _copy(args, grad)
    try:
        with _enable_grad():
            out = fn(*copies)
            seen: dict[str, Any] = {"out": _outputs(out, copies)}
            total = _sum_abs(out)
            wanted = [copies[i] for i in grad]
            if isinstance(total, _Tensor) and total.requires_grad and wanted:
                grads = _grad(total, wanted, allow_unused=True)
                seen["grads"] = [plain(g) for g in grads]
            else:
                seen["grads"] = None
    except Exception as exc:  # noqa: BLE001
        return {"raised": raised(exc)}
    return seen


def autograd(op: Any, args: tuple[Any, ...], grad: tuple[int, ...]) -> dict[str, Any]:
    """What test_autograd_registration looks at: the dispatcher's autograd kernels for the operator and, with
    the autograd fallback doing nothing, whether an output that is not an input requires grad."""
    name = op.name()
    kernels = {key: bool(_has_kernel(name, key)) for key in _AUTOGRAD_KEYS}
    copies = _copy(args, grad)
    previous = _get_fallback()
    _set_fallback("nothing")
    try:
        out = op(*copies)
        ids = {id(a) for a in copies}
        outputs_require_grad = any(
            isinstance(leaf, _Tensor) and leaf.requires_grad and id(leaf) not in ids for leaf in _leaves(out)
        )
        seen: dict[str, Any] = {"kernels": kernels, "outputs_require_grad": outputs_require_grad}
    except Exception as exc:  # noqa: BLE001
        seen = {"kernels": kernels, "raised": raised(exc)}
    finally:
        _set_fallback(previous)
    return seen


def aot(op: Any, args: tuple[Any, ...], grad: tuple[int, ...], dynamic: bool = True) -> dict[str, Any]:
    """What test_aot_dispatch_dynamic looks at: outputs and gradients in eager mode and through AOTAutograd
    (dynamic shapes, no compiler), each on fresh copies; the checker compares them."""
    from torch._functorch.aot_autograd import compiled_function  # noqa: PLC0415 - the zygote preloads it
    from torch._functorch.compilers import nop  # noqa: PLC0415
    from torch._functorch.partitioners import min_cut_rematerialization_partition  # noqa: PLC0415

    def func(*a: Any) -> Any:
        return op(*[x.clone() if isinstance(x, _Tensor) else x for x in a])

    eager = _forward_backward(func, args, grad)
    try:
        compiled = compiled_function(
            func, nop, nop, dynamic=dynamic, partition_fn=min_cut_rematerialization_partition,
            keep_inference_input_mutations=True,
        )  # fmt: skip
    except Exception as exc:  # noqa: BLE001
        return {"eager": eager, "aot": {"raised": raised(exc)}}
    return {"eager": eager, "aot": _forward_backward(compiled, args, grad)}


def opcheck_data(op: Any, args: tuple[Any, ...], grad: tuple[int, ...] = (), tests=_OPCHECK_TESTS) -> dict[str, Any]:
    """Everything opcheck's tests look at, per test (judge.checker.opchecks decides each one).

    test_schema runs on inputs that do not require grad (what the operator itself mutates and aliases); the
    others on inputs whose positions in `grad` require it, so that they exercise the registered backward."""
    seen: dict[str, Any] = {}
    for test in tests:
        if test == "test_schema":
            seen[test] = call(op, args)
        elif test == "test_autograd_registration":
            seen[test] = autograd(op, args, grad) if grad else None
        elif test == "test_faketensor":
            seen[test] = fake(op, args, grad)
        elif test == "test_aot_dispatch_dynamic":
            seen[test] = aot(op, args, grad)
    return seen
