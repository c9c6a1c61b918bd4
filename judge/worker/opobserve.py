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
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from judge.worker import tensors
from judge.worker.learner import is_out_of_memory

# Bound when the probes load, before the submission is imported: what a submission rebinds afterwards does not
# change what runs here. Every tensor is read through judge.worker.tensors (the base class's own C descriptors).
_has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
_get_fallback, _set_fallback = torch._C._get_autograd_fallback_mode, torch._C._set_autograd_fallback_mode
_grad = torch.autograd.grad
_enable_grad = torch.enable_grad
_sum = torch.sum
_abs = torch.abs
_AUTOGRAD_KEYS = ("AutogradCPU", "AutogradCUDA", "Autograd", "CompositeImplicitAutograd")
_OPCHECK_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
_is_trusted, _is_plain, _kind = tensors.is_trusted, tensors.is_plain, tensors.kind
_storage_id, _version, _describe, _plain = tensors.storage_id, tensors.version, tensors.describe, tensors.plain
_FAKE = tensors.FAKE


def raised(exc: BaseException) -> dict[str, str]:
    """An exception as data (its type and text); an allocation the job's limit refused stays a memory error."""
    if is_out_of_memory(exc):
        raise exc
    return {"type": type(exc).__name__, "message": str(exc)[:2000]}


def meta(t: Any) -> dict[str, Any]:
    """A tensor's metadata, a subclass's refusal, or the type of what is not a tensor (judge.worker.tensors)."""
    return _describe(t)


def plain(t: Any) -> Any:
    """A plain CPU copy the channel carries, of a CPU or GPU tensor; a subclass's refusal; None for anything else."""
    return _plain(t)


def _leaves(out: Any, _type=type, _tuple=tuple, _list=list) -> list[Any]:
    kind = _type(out)
    if kind is _tuple or kind is _list:
        return _list(out)
    return [out]


def _copy(args: tuple[Any, ...], grad: tuple[int, ...] = ()) -> list[Any]:
    """Fresh copies of the tensor arguments the checker sent, with their strides (leaves requiring grad at the
    positions in `grad`)."""
    return [tensors.leaf(a, i in grad) if _is_plain(a) else a for i, a in enumerate(args)]


def _outputs(out: Any, args: list[Any], values: bool = True) -> list[dict[str, Any]]:
    """Each output leaf: metadata, the value (a plain copy) and the argument whose storage it shares, if any."""
    arg_storages = {i: _storage_id(a) for i, a in enumerate(args) if _is_trusted(a)}
    found = []
    for leaf in _leaves(out):
        entry: dict[str, Any] = {"meta": _describe(leaf)}
        if _is_trusted(leaf):
            sid = _storage_id(leaf)
            entry["aliases"] = [i for i, s in arg_storages.items() if s == sid]
            if values:
                entry["value"] = _plain(leaf)
        found.append(entry)
    return found


def _before(args: list[Any]) -> dict[int, tuple[int, int]]:
    """(storage, version) of each tensor argument before a call."""
    return {i: (_storage_id(a), _version(a)) for i, a in enumerate(args) if _is_trusted(a)}


def _arguments(args: list[Any], before: dict[int, tuple[int, int]], values: bool = True) -> list[dict[str, Any] | None]:
    """Each tensor argument after the call: metadata, value, whether it still uses the storage it had, and whether
    anything wrote to it in place (its version counter moved: a write that put the values back counts too)."""
    found: list[dict[str, Any] | None] = []
    for i, a in enumerate(args):
        if i not in before:
            found.append(None)
            continue
        storage, version = before[i]
        entry: dict[str, Any] = {
            "meta": _describe(a),
            "same_storage": _storage_id(a) == storage,
            "written": _version(a) != version,
        }
        if values:
            entry["value"] = _plain(a)
        found.append(entry)
    return found


def call(op: Any, args: tuple[Any, ...], grad: tuple[int, ...] = ()) -> dict[str, Any]:
    """Call `op` once on copies of `args`: its outputs and the arguments afterwards (what test_schema compares
    with the schema: which arguments were written, which outputs alias an input)."""
    copies = _copy(args, grad)
    before = _before(copies)
    try:
        out = op(*copies)
    except Exception as exc:  # noqa: BLE001 - what the learner's operator raised is an observation
        return {"raised": raised(exc)}
    return {"returned": tensors.type_name(out), "out": _outputs(out, copies), "args": _arguments(copies, before)}


def fake(op: Any, args: tuple[Any, ...], grad: tuple[int, ...] = ()) -> dict[str, Any]:
    """The operator under FakeTensorMode on fake copies of `args` (static shapes, as test_faketensor makes them)
    and for real on copies: the metadata of both, for the checker to compare."""
    real = call(op, args, grad)
    copies = _copy(args, grad)  # outside the mode: it refuses real tensors made inside it
    try:
        with FakeTensorMode(shape_env=ShapeEnv()) as mode:
            fakes = [mode.from_tensor(a, static_shapes=True) if _is_plain(a) else a for a in copies]
            before = _before(fakes)
            out = op(*fakes)
            seen: dict[str, Any] = {"returned": tensors.type_name(out), "out": _outputs(out, fakes, False)}
            seen["args"] = _arguments(fakes, before, False)
    except Exception as exc:  # noqa: BLE001
        seen = {"raised": raised(exc)}
    return {"real": real, "fake": seen}


def _sum_abs(out: Any) -> Any:
    total: Any = 0
    for leaf in _leaves(out):
        if _is_plain(leaf):
            total = total + _abs(_sum(leaf))
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
            if _is_plain(total) and tensors.requires_grad(total) and wanted:
                grads = _grad(total, wanted, allow_unused=True)
                seen["grads"] = [_plain(g) for g in grads]
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
            _is_trusted(leaf) and tensors.requires_grad(leaf) and id(leaf) not in ids for leaf in _leaves(out)
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

    def func(*a: Any, _isinstance=isinstance, _tensor=torch.Tensor, _clone=tensors.clone) -> Any:
        # Called by AOTAutograd with its own traced tensors (functional wrappers of torch's), not the learner's.
        return op(*[_clone(x) if _isinstance(x, _tensor) else x for x in a])

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
