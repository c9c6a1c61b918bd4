"""Probes for exercise 107: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. The operators are reached only through the dispatcher
(``torch.ops.ex107.silu_and_mul`` and ``torch.ops.ex107.silu_and_mul_out``). Tensors arrive on the
CPU; a probe moves them to DEVICE, runs the operator, and sends plain CPU tensors back.

DEVICE is "cpu" under Triton's interpreter (TRITON_INTERPRET=1: the CPU tier, judged everywhere)
and "cuda" where a GPU is present and the interpreter is off (the GPU tier).

Probes are not secret: reading them shows exactly how your operators are exercised.
"""

import os
import sys

import torch
from torch._dynamo import reset as _dynamo_reset
from torch._dynamo.testing import CompileCounterWithBackend as _CompileCounter
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode
from torch.library import opcheck as _opcheck

from judge.worker.observe import op_exists as _op_exists
from judge.worker.observe import schema as _schema_of

# Bound at import time, before the learner's module is imported.
_compile = torch.compile
_ops = torch.ops
_empty = torch.empty
_equal = torch.equal
_Tensor = torch.Tensor

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1" or not torch.cuda.is_available()
DEVICE = "cpu" if INTERPRET else "cuda"


def _interpret_triton_library():
    """Make Triton's own @jit library functions (tl.sigmoid, tl.cdiv, tl.sum's combine function...)
    interpretable in this process.

    triton.jit reads TRITON_INTERPRET when a function is decorated. The worker's parent process already
    imported triton (torch._dynamo does), so triton.language's library functions were decorated as
    compiled kernels, and calling one from an interpreted kernel fails ("Cannot call @triton.jit'd
    outside of the scope of a kernel"). Setting TRITON_INTERPRET=1 in the parent's environment before
    it imports torch makes this a no-op; until the judge does that, rewrap them here, the way
    triton.language does when it is first imported with the interpreter on."""
    try:
        import triton.language as tl
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction
    except ImportError:  # no Triton: the learner's import says what to install
        return
    made = {}

    def interpreted(fn):
        if id(fn) not in made:
            made[id(fn)] = InterpretedFunction(fn.fn)
        return made[id(fn)]

    for name, module in list(sys.modules.items()):
        if name.startswith("triton.language") and module is not None:
            for attr, value in list(vars(module).items()):
                if isinstance(value, JITFunction):
                    setattr(module, attr, interpreted(value))
    for attr, value in list(vars(tl.tensor).items()):
        if isinstance(value, JITFunction):  # x.sigmoid(): a plain forwarding method, as triton makes it
            setattr(tl.tensor, attr, _method(interpreted(value)))


def _method(fn):
    def member(*args, **kwargs):
        return fn(*args, **kwargs)

    return member


if INTERPRET:
    os.environ["TRITON_INTERPRET"] = "1"
    _interpret_triton_library()


# ---------------------------------------------------------------- helpers (not probes)


def _op(name):
    return getattr(_ops.ex107, name).default


def _describe(t):
    if not isinstance(t, _Tensor):
        return {"is_tensor": False, "type": type(t).__name__}
    return {
        "is_tensor": True,
        "shape": [int(s) for s in t.shape],
        "dtype": str(t.dtype),
        "device": str(t.device),
        "type": type(t).__name__,
        "contiguous": bool(t.is_contiguous()),
    }


def _plain(t):
    if not isinstance(t, _Tensor):
        return None
    return t.detach().to("cpu").clone().contiguous()


def _first_line(text):
    text = str(text).strip()
    return text.splitlines()[0][:300] if text else ""


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


# ---------------------------------------------------------------- environment and schema


def environment(solution):
    """Where the kernels run here: {"device", "interpret", "triton"} (triton's version or None)."""
    triton = sys.modules.get("triton")
    return {"device": DEVICE, "interpret": INTERPRET, "triton": getattr(triton, "__version__", None)}


def op_exists(solution, name):
    return _op_exists(f"ex107::{name}")


def schema(solution, name):
    return _schema_of(f"ex107::{name}")


# ---------------------------------------------------------------- eager


def eager(solution, x):
    """silu_and_mul(x) once on DEVICE: the output, and whether x changed or shares memory with it."""
    x = x.to(DEVICE)
    before = x.clone()
    out = _op("silu_and_mul")(x)
    if not isinstance(out, _Tensor):
        return {
            "out": None,
            "type": type(out).__name__,
            "x_changed": not _equal(x, before),
            "shares_input_memory": False,
            "contiguous": False,
            "device": None,
        }
    shares = out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    return {
        "out": _plain(out),
        "type": type(out).__name__,
        "x_changed": not _equal(x, before),
        "shares_input_memory": shares,
        "contiguous": bool(out.is_contiguous()),
        "device": out.device.type,
    }


def out_variant(solution, xbuf, x_offset, x_shape, obuf, o_offset, o_shape):
    """silu_and_mul_out(x, out) where x and out are contiguous views inside larger buffers whose other
    elements (the guard regions) hold values the checker knows. Returns both buffers whole, and what
    the operator returned."""
    xbuf, obuf = xbuf.to(DEVICE), obuf.to(DEVICE)
    x = xbuf.narrow(0, x_offset, _numel(x_shape)).view(x_shape)
    out = obuf.narrow(0, o_offset, _numel(o_shape)).view(o_shape)
    returned = _op("silu_and_mul_out")(x, out)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return {"xbuf": _plain(xbuf), "obuf": _plain(obuf), "returned": type(returned).__name__}


# ---------------------------------------------------------------- no data: meta and fake tensors


def meta(solution, shape, dtype):
    return _describe(_op("silu_and_mul")(_empty(*shape, dtype=dtype, device="meta")))


def fake(solution, x):
    with _FakeTensorMode() as mode:
        return _describe(_op("silu_and_mul")(mode.from_tensor(x.to(DEVICE))))


# ---------------------------------------------------------------- GPU tier: opcheck and torch.compile


def run_opcheck(solution, name, args):
    """torch.library.opcheck on DEVICE (no input requires grad): {test: "SUCCESS" or the first line}."""
    args = tuple(a.to(DEVICE) if isinstance(a, _Tensor) else a for a in args)
    result = _opcheck(_op(name), args, raise_exception=False)
    return {
        key: val if val == "SUCCESS" else f"{type(val).__name__}: {_first_line(val)}" for key, val in result.items()
    }


def compiled(solution, xs, through_out):
    """torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) of a block that calls
    silu_and_mul(x), or (through_out) allocates out and calls silu_and_mul_out(x, out); the outputs
    for each x in turn and how many graphs Dynamo compiled."""
    _dynamo_reset()
    functional, out_op = _op("silu_and_mul"), _op("silu_and_mul_out")

    def block(x):
        if not through_out:
            return functional(x)
        out = x.new_empty((*x.shape[:-1], x.shape[-1] // 2))
        out_op(x, out)
        return out

    counter = _CompileCounter("aot_eager")
    try:
        fn = _compile(block, fullgraph=True, backend=counter, dynamic=True)
        outs = [_plain(fn(x.to(DEVICE))) for x in xs]
    finally:
        _dynamo_reset()
    return {"outs": outs, "graphs": int(counter.frame_count)}
