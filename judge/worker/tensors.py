"""Every observation of a tensor that reaches a verdict, read through accessors bound before learner code runs.

A submission can return a subclass of a tensor class (of torch.Tensor, of FakeTensor) whose `dtype`, `device`,
`shape` or `__class__` are properties of its own, or a plain tensor with a method of its own in its instance
dict (`out.detach = ...` shadows the class's). So nothing here reads an attribute of a tensor, or calls one of its
methods, by name: sizes, strides, dtype, device, requires_grad, the version counter, pointers and copies all go
through the C descriptors of torch's tensor base class (`torch._C.TensorBase.__dict__`), taken when the worker
zygote imports this module, long before a submission is imported. Types are tested by identity against the
classes bound at the same time, with the builtins bound as defaults (a submission may rebind `builtins.type`).

What a submission hands back is one of three trusted kinds (a plain torch.Tensor, a Parameter, a FakeTensor) or it
is refused: a tensor of any other class is described only by its class's name, never read further (no C getter
runs on it), and `judge.checker.remote` turns that description into a failed case that says so. Probes read every
tensor through this module; `judge check` refuses a probes file that reads one directly (judge.problem.probe_rules).
"""

from __future__ import annotations

from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor

_TensorBase = torch._C.TensorBase
_C = _TensorBase.__dict__
_Tensor, _Parameter, _Fake = torch.Tensor, torch.nn.Parameter, FakeTensor
_Storage = torch._C.StorageBase.__dict__

_size, _stride, _offset, _dim = (_C[k] for k in ("size", "stride", "storage_offset", "dim"))
_dtype, _device, _requires_grad, _version, _grad, _is_meta, _layout = (
    _C[k].__get__ for k in ("dtype", "device", "requires_grad", "_version", "grad", "is_meta", "layout")
)
_data_ptr, _is_contiguous, _untyped_storage, _element_size = (
    _C[k] for k in ("data_ptr", "is_contiguous", "untyped_storage", "element_size")
)
_detach, _clone, _contiguous, _to, _requires_grad_ = (
    _C[k] for k in ("detach", "clone", "contiguous", "to", "requires_grad_")
)
_storage_ptr, _storage_cdata = _Storage["data_ptr"], _Storage["_cdata"].__get__
_instance_dict = _Tensor.__dict__["__dict__"].__get__
_type_name = type.__dict__["__name__"].__get__
_type_module = type.__dict__["__module__"].__get__
_mro = type.__dict__["__mro__"].__get__
_device_type = torch.device
_strided = torch.strided
_backward = torch.autograd.backward
_contiguous_format = torch.contiguous_format

TENSOR, PARAMETER, FAKE, SUBCLASS, NOT_A_TENSOR = "tensor", "parameter", "fake", "subclass", "not a tensor"
SUBCLASS_KEY = "tensor_subclass"  # the one key of a refused tensor's description (judge.checker.remote reads it)
_KINDS = {id(_Tensor): TENSOR, id(_Parameter): PARAMETER, id(_Fake): FAKE}


def kind(x: Any, _type=type, _get=_KINDS.get, _id=id, _in=tuple.__contains__, _base=_TensorBase, _mro=_mro) -> str:
    """TENSOR, PARAMETER or FAKE for an instance of exactly that class; SUBCLASS for any other tensor; else
    NOT_A_TENSOR. Read from the object's type (CPython's own slot, which no class can override)."""
    cls = _type(x)
    found = _get(_id(cls))
    if found is not None:
        return found
    return SUBCLASS if _in(_mro(cls), _base) else NOT_A_TENSOR


def is_trusted(x: Any, _kind=kind, _sub=SUBCLASS, _not=NOT_A_TENSOR) -> bool:
    """A tensor of one of the three classes this module reads."""
    found = _kind(x)
    return found != _sub and found != _not


def is_plain(x: Any, _kind=kind, _tensor=TENSOR, _parameter=PARAMETER) -> bool:
    """A real tensor (torch.Tensor or Parameter) with data behind it: neither fake nor a subclass."""
    found = _kind(x)
    return found == _tensor or found == _parameter


def type_name(x: Any, _type=type, _name=_type_name, _module=_type_module, _str=str) -> str:
    """The name of an object's class, as CPython holds it (a metaclass cannot put another name here)."""
    cls = _type(x)
    module = _module(cls)
    name = _name(cls)
    return name if _type(module) is not _str or module == "builtins" else f"{module}.{name}"


def mro(x: Any, _type=type, _mro=_mro) -> tuple[type, ...]:
    """The classes an object's type derives from, as CPython holds them (to test `dict in mro(x)`)."""
    return _mro(_type(x))


def refused(x: Any, _name=type_name) -> dict[str, str]:
    """The description of a tensor of a class the statement does not ask for: its class's name and nothing else."""
    return {SUBCLASS_KEY: _name(x)}


def dim(d: Any, _type=type, _int=int, _str=str) -> int | dict[str, str]:
    """A size or stride: an int, or {"symbolic": text} for a symbolic one (a fake's data-dependent size, "u0")."""
    return d if _type(d) is _int else {"symbolic": _str(d)}


def shape(t: Any, _size=_size, _dim=dim, _list=list, _map=map) -> list[Any]:
    return _list(_map(_dim, _size(t)))


def strides(t: Any, _stride=_stride, _dim=dim, _list=list, _map=map) -> list[Any]:
    return _list(_map(_dim, _stride(t)))


def ndim(t: Any, _dim_of=_dim) -> int:
    return _dim_of(t)


def sizes(t: Any, _size=_size, _tuple=tuple) -> tuple[Any, ...]:
    """The sizes as torch holds them (ints or SymInts), for a probe that needs the objects themselves."""
    return _tuple(_size(t))


def dtype(t: Any, _dtype=_dtype, _str=str) -> str:
    return _str(_dtype(t))


def dtype_of(t: Any, _dtype=_dtype) -> torch.dtype:
    """The dtype object (to make a tensor of the same dtype)."""
    return _dtype(t)


def device(
    t: Any, _kind=kind, _fake=FAKE, _device=_device, _dict=_instance_dict, _get=dict.get, _type=type,
    _device_type=_device_type, _str=str,
) -> str:  # fmt: skip
    """The device a tensor is on; a fake tensor's is the device it stands for (FakeTensor keeps it in its instance
    dict; its C-level device is "meta")."""
    if _kind(t) == _fake:
        found = _get(_dict(t), "_fake_device")
        return _str(found) if _type(found) is _device_type else "meta"
    return _str(_device(t))


def requires_grad(t: Any, _get=_requires_grad, _bool=bool) -> bool:
    return _bool(_get(t))


def version(t: Any, _get=_version, _int=int) -> int:
    """The version counter: every in-place write bumps it, even one that leaves the values as they were."""
    return _int(_get(t))


def storage_id(t: Any, _storage=_untyped_storage, _cdata=_storage_cdata, _int=int) -> int:
    """An id of the storage a tensor uses, equal for tensors that share memory (fake ones included)."""
    return _int(_cdata(_storage(t)))


def storage_ptr(t: Any, _storage=_untyped_storage, _ptr=_storage_ptr, _int=int) -> int:
    """The address of the memory a real tensor's storage holds (0 for meta and fake)."""
    return _int(_ptr(_storage(t)))


def data_ptr(t: Any, _ptr=_data_ptr, _int=int) -> int:
    return _int(_ptr(t))


def element_size(t: Any, _size=_element_size, _int=int) -> int:
    """Bytes per element."""
    return _int(_size(t))


def offset(t: Any, _offset=_offset, _dim=dim) -> Any:
    return _dim(_offset(t))


def is_contiguous(t: Any, _check=_is_contiguous, _format=_contiguous_format, _bool=bool) -> bool:
    return _bool(_check(t, memory_format=_format))


def is_meta(t: Any, _get=_is_meta, _bool=bool) -> bool:
    return _bool(_get(t))


def grad(t: Any, _get=_grad) -> Any:
    """The gradient autograd stored on a leaf (None if none)."""
    return _get(t)


def describe(
    x: Any, _kind=kind, _sub=SUBCLASS, _not=NOT_A_TENSOR, _refused=refused, _name=type_name, _shape=shape,
    _strides=strides, _offset=offset, _dtype=dtype, _device=device, _rg=requires_grad, _contig=is_contiguous,
) -> dict[str, Any]:  # fmt: skip
    """A tensor's metadata as plain data (what opcheck's comparisons and the probes look at), the refusal of a
    subclass, or the class of what is not a tensor."""
    found = _kind(x)
    if found == _not:
        return {"is_tensor": False, "type": _name(x)}
    if found == _sub:
        return _refused(x)
    return {
        "is_tensor": True,
        "kind": found,
        "type": "FakeTensor" if found == FAKE else "Parameter" if found == PARAMETER else "Tensor",
        "shape": _shape(x),
        "stride": _strides(x),
        "storage_offset": _offset(x),
        "dtype": _dtype(x),
        "device": _device(x),
        "requires_grad": _rg(x),
        "contiguous": _contig(x),
    }


def plain(
    t: Any, _kind=kind, _tensor=TENSOR, _parameter=PARAMETER, _sub=SUBCLASS, _refused=refused, _meta=_is_meta,
    _detach=_detach, _to=_to, _contiguous=_contiguous, _strided=_strided, _layout=_layout,
) -> Any:  # fmt: skip
    """A plain contiguous CPU copy of a real tensor, for the channel; a subclass's refusal; None for anything
    else (a fake or meta tensor has no data). The copy is made with torch's own kernels, through the base class's
    C methods, so no method of the object's runs."""
    found = _kind(t)
    if found == _sub:
        return _refused(t)
    if (found != _tensor and found != _parameter) or _meta(t) or _layout(t) is not _strided:
        return None
    return _contiguous(_to(_detach(t), "cpu", copy=True))


def leaf(t: Any, grad: bool = True, _detach=_detach, _clone=_clone, _requires_grad_=_requires_grad_) -> Any:
    """A fresh copy of a tensor the checker sent, as a leaf that requires grad (or not)."""
    copy = _clone(_detach(t))
    return _requires_grad_(copy, grad) if grad else copy


def clone(t: Any, _clone=_clone) -> Any:
    """t.clone() through the base class's C method (autograd kept): for the judge's own traced tensors."""
    return _clone(t)


def copy(t: Any, _clone=_clone, _detach=_detach) -> Any:
    """A fresh copy of a tensor the checker sent, with its strides."""
    return _clone(_detach(t))


def backward(out: Any, grad_out: Any, _is_plain=is_plain, _backward=_backward) -> bool:
    """out.backward(grad_out) for a real tensor output, through torch.autograd's function (no method of the
    output's runs); False, and nothing run, for anything else."""
    if not _is_plain(out):
        return False
    _backward((out,), (grad_out,))
    return True
