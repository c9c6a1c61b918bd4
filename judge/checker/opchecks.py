"""opcheck's four tests decided in the checker, from what `judge.worker.opobserve.opcheck_data` observed.

Each test gives "SUCCESS" or a status "Type: text" in the words torch's own opcheck uses (so a problem's table
of lessons, keyed on torch's phrases, reads the same), naming the argument, the output and the first field that
differs. The worker only ran the operator; every comparison is here, with the arguments the checker sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import torch

from judge.checker.messages import error_line

SUCCESS = "SUCCESS"
_FIELDS = ("shape", "dtype", "device", "stride", "storage_offset", "requires_grad")


def _raised(seen: dict[str, Any]) -> str:
    """What the learner's code raised, as opcheck reported it: the type and the first line (torch's note on
    where the implementation was registered dropped)."""
    exc = seen["raised"]
    text = re.sub(r" \(with implementation in <module [^>]*>\)", "", str(exc["message"]))
    return error_line(exc["type"], text)


# How an argument changed, worded after torch's "is not defined as mutable but was mutated": a write whose values
# were put back is caught by the version counter alone (torch's own checks fail it too), and the judge asks to stop
# writing rather than to declare it, since nothing of it is meant to be seen.
CHANGED = {
    "storage": "its storage was replaced in the call",
    "shape": "its shape changed in the call",
    "values": "its values changed in the call",
    "written": "it was written in place in the call, and its values put back: do not write it at all",
}


def _changed(after: dict[str, Any], sent: torch.Tensor) -> str | None:
    """How an argument changed in the call (a key of CHANGED), or None if it did not."""
    if not after["same_storage"]:
        return "storage"
    got = after["meta"]
    if got.get("shape") != list(sent.shape) or got.get("dtype") != str(sent.dtype):
        return "shape"
    value = after.get("value")
    if value is not None and not torch.equal(value.view(sent.shape), sent.contiguous()):
        if not (value.is_floating_point() and torch.equal(value.isnan(), sent.isnan())
                and torch.equal(value.nan_to_num(), sent.contiguous().nan_to_num())):  # fmt: skip
            return "values"
    if after.get("written"):
        return "written"
    return None


def schema_status(seen: dict[str, Any], schema: dict[str, Any], sent: Sequence[Any]) -> str:
    """test_schema: every argument the call changed is declared written (`Tensor(a!)`), and no output shares
    memory with an argument unless the schema declares that alias."""
    if "raised" in seen:
        return _raised(seen)
    arguments = schema["arguments"]
    for i, after in enumerate(seen["args"]):
        if after is None or i >= len(arguments) or not isinstance(sent[i], torch.Tensor):
            continue
        how = _changed(after, sent[i])
        if how is not None and not arguments[i]["is_write"]:
            return (
                f"RuntimeError: Argument {arguments[i]['name']} is not defined as mutable but was mutated "
                f"({CHANGED[how]})"
            )
    returns = schema["returns"]
    for j, out in enumerate(seen["out"]):
        declared = j < len(returns) and returns[j]["has_alias"]
        for i in out.get("aliases", []):
            if not declared:
                name = arguments[i]["name"] if i < len(arguments) else f"#{i}"
                return (
                    f"RuntimeError: output {j} shares memory with argument {name}: the output of this custom "
                    f"operator must not also be an input to it and may not alias any inputs"
                )
    return SUCCESS


_DETAIL = {  # each starts with the word torch's own comparison (torch._prims_common.compare_tensor_meta) starts with
    "shape": "shapes differ",
    "dtype": "dtypes differ",
    "device": "devices differ",
    "stride": "stride differs",
    "storage_offset": "storage offset differs",
    "requires_grad": "requires_grad differs",
}


def _significant(strides: Any, shape: Any) -> Any:
    """Strides as torch's fake-tensor check compares them (torch._prims_common.check_significant_strides): only
    those of dimensions longer than 1, and none of a tensor with no elements. The others are None (any value)."""
    if not isinstance(strides, list) or not isinstance(shape, list) or len(strides) != len(shape):
        return strides
    if any(isinstance(d, int) and d == 0 for d in shape):
        return [None] * len(strides)
    return [s if not isinstance(d, int) or d > 1 else None for s, d in zip(strides, shape)]


def _agrees(real: Any, fake: Any) -> bool:
    """Whether a fake's field describes the real one: equal, where a symbolic size of the fake's (text, such as a
    data-dependent "u0") stands for any value (torch's comparison allows unbacked sizes on the fake side)."""
    if isinstance(fake, dict) and "symbolic" in fake or real is None:
        return True
    if isinstance(real, list) and isinstance(fake, list):
        return len(real) == len(fake) and all(_agrees(r, f) for r, f in zip(real, fake))
    return bool(real == fake)


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "(" + ", ".join(map(_show, value)) + ("," if len(value) == 1 else "") + ")"
    return str(value["symbolic"]) if isinstance(value, dict) and "symbolic" in value else str(value)


def _mismatch(field: str, r: Any, f: Any) -> str:
    return f"{_DETAIL[field]}: the kernel's output has {_show(r)}, the fake's {_show(f)}"


def fake_status(seen: dict[str, Any], op: str) -> str:
    """test_faketensor: the fake implementation returns what the kernel returns, field for field (torch's
    CrossRefFakeMode's comparison, with its words)."""
    real, fake = seen["real"], seen["fake"]
    if "raised" in real:
        return _raised(real)
    if "raised" in fake:
        return _raised(fake)
    context = f"When comparing the output of {op} on FakeTensor and concrete Tensors, found"
    if len(real["out"]) != len(fake["out"]):
        return f"AssertionError: {context} mismatch in number of returns {len(fake['out'])} != {len(real['out'])}"
    for j, (r, f) in enumerate(zip(real["out"], fake["out"])):
        rm, fm = r["meta"], f["meta"]
        if rm["is_tensor"] != fm["is_tensor"]:
            return f"AssertionError: {context} mismatched number of tensor outputs"
        if not rm["is_tensor"]:
            continue
        for field in _FIELDS:
            r_value, f_value = rm[field], fm[field]
            if field == "stride":
                r_value, f_value = _significant(r_value, rm["shape"]), _significant(f_value, rm["shape"])
            if not _agrees(r_value, f_value):
                where = "" if len(real["out"]) == 1 else f" for output[{j}]"
                detail = _mismatch(field, rm[field], fm[field])
                return f"MetadataMismatchError: {context} mismatched tensor metadata{where}: {detail}"
        if sorted(r.get("aliases", [])) != sorted(f.get("aliases", [])):
            return (
                f"MetadataMismatchError: {context} mismatched aliasing for output[{j}]: the real output shares "
                f"memory with arguments {r.get('aliases', [])}, the fake one with {f.get('aliases', [])}"
            )
    return SUCCESS


def autograd_status(seen: dict[str, Any] | None, op: str) -> str:
    """test_autograd_registration: an operator whose inputs require grad has its autograd kernel at an autograd
    key, or none of its outputs requires grad (else the backward lives somewhere autograd does not look)."""
    if seen is None:
        return SUCCESS
    kernels = seen["kernels"]
    if kernels.get("AutogradCPU") or kernels.get("Autograd") or kernels.get("CompositeImplicitAutograd"):
        return SUCCESS
    if "raised" in seen:
        return _raised(seen)
    if seen["outputs_require_grad"]:
        return (
            f"AssertionError: {op}: at least one output of this operator has requires_grad=True but the operator "
            f"does not have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd)"
        )
    return SUCCESS


def _first_difference(got: Any, want: Any) -> str | None:
    if (got is None) != (want is None):
        return "nothing where eager mode gives a tensor" if got is None else "a tensor where eager mode gives nothing"
    if got is None:
        return None
    try:
        torch.testing.assert_close(got, want, equal_nan=True)
    except AssertionError as exc:
        return " ".join(str(exc).split())[:300]
    return None


def aot_status(seen: dict[str, Any], names: Sequence[str], grad: Sequence[int]) -> str:
    """test_aot_dispatch_dynamic: outputs and gradients through AOTAutograd equal those of eager mode."""
    eager, aot = seen["eager"], seen["aot"]
    if "raised" in eager:
        return _raised(eager)
    if "raised" in aot:
        return _raised(aot)
    if len(eager["out"]) != len(aot["out"]):
        return "AssertionError: Outputs of the operator are different in eager-mode PyTorch vs AOTDispatcher tracing"
    for j, (e, a) in enumerate(zip(eager["out"], aot["out"])):
        wrong = _first_difference(a.get("value"), e.get("value"))
        if wrong:
            return (
                f"AssertionError: Outputs of the operator are different in eager-mode PyTorch vs AOTDispatcher "
                f"tracing (output {j}): {wrong}"
            )
    for k, (e, a) in enumerate(zip(eager.get("grads") or [], aot.get("grads") or [])):
        wrong = _first_difference(a, e)
        if wrong:
            name = names[grad[k]] if grad[k] < len(names) else f"#{grad[k]}"
            return (
                f"AssertionError: Gradients of the operator are different in eager-mode PyTorch vs AOTDispatcher "
                f"(the gradient of {name}): {wrong}"
            )
    if (eager.get("grads") is None) != (aot.get("grads") is None):
        return "AssertionError: Gradients of the operator are different in eager-mode PyTorch vs AOTDispatcher"
    return SUCCESS


def opcheck_results(
    data: dict[str, Any], schema: dict[str, Any], sent: Sequence[Any], grad: Sequence[int] = ()
) -> dict[str, str]:
    """{test name: "SUCCESS" or the status}, in opcheck's order, for the tests `data` holds."""
    op = schema["name"]
    names = [a["name"] for a in schema["arguments"]]
    deciders = {
        "test_schema": lambda seen: schema_status(seen, schema, sent),
        "test_autograd_registration": lambda seen: autograd_status(seen, op),
        "test_faketensor": lambda seen: fake_status(seen, op),
        "test_aot_dispatch_dynamic": lambda seen: aot_status(seen, names, grad),
    }
    return {test: deciders[test](seen) for test, seen in data.items() if test in deciders}
