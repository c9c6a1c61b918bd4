"""Probes for exercise 107: run inside the worker, next to the learner's module.

Each probe is ``probe(solution, *args)``. The operators are reached only through the dispatcher
(``torch.ops.ex107.silu_and_mul`` and ``torch.ops.ex107.silu_and_mul_out``). Tensors arrive on the
CPU; a probe moves them to DEVICE, runs the operator, and sends plain CPU tensors back.

DEVICE is "cpu" under Triton's interpreter (TRITON_INTERPRET=1: the CPU tier, judged everywhere)
and "cuda" where a GPU is present and the interpreter is off (the GPU tier).

Under the interpreter, every load and store of your kernels passes through _Launch.access below: one whose
mask lets it through (or that has no mask) to an element outside the kernel's tensors is recorded and not
performed, and so is each output element written by a second program (a race on a GPU). An autotuned kernel
runs with its first config there (the interpreter cannot benchmark).

Probes are not secret: reading them shows exactly how your operators are exercised.
"""

import os
import sys

import torch
from torch._dynamo import reset as _dynamo_reset
from torch._subclasses.fake_tensor import FakeTensorMode as _FakeTensorMode

from judge.worker import compiled as _compiled
from judge.worker import tensors as _t
from judge.worker.observe import op_exists as _op_exists
from judge.worker.observe import schema as _schema_of
from judge.worker.opobserve import opcheck_data as _opcheck_data

# Bound at import time, before the learner's module is imported.
_compile = torch.compile
_ops = torch.ops
_empty = torch.empty
_full = torch.full
_cat = torch.cat
_str, _getattr = str, getattr

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1" or not torch.cuda.is_available()
DEVICE = "cpu" if INTERPRET else "cuda"
GUARD = 8192  # elements on each side of x in the functional operator's buffer (as conftest.py's GUARD)
# Code that reads no tensor of the submission's, so judge check's reading rule passes over it
# (judge.problem.probe_rules): the interpreter's re-wrapping of Triton's library at import, before the
# submission runs, the blocks torch.compile traces, and the load/store checks, which read the interpreter's numpy
# arrays and Triton handles. Tensors are read through judge.worker.tensors.
RUN_NOT_READ = ("_interpret_triton_library", "block", "access", "masked")  # numpy and Triton handles, not tensors


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


class _Launch:
    """One kernel launch under the interpreter: its tensors, and what its programs loaded and stored."""

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid
        self.tensors = []  # [name, lo, hi (bytes), element size, numel, owner (np int64 or None), masked_inside]
        self.outside = {}  # ("load" | "store", tensor name) -> [set of element indices, numel, first program]
        self.races = {}  # tensor name -> [set of element indices, (index, first program, second program)]

    def add_tensor(self, name, tensor):
        shape = _t.shape(tensor)
        numel = _numel(shape)
        if numel == 0:
            return
        size = _t.element_size(tensor)
        span = 1 + sum((s - 1) * abs(st) for s, st in zip(shape, _t.strides(tensor)))
        lo = _t.data_ptr(tensor)
        self.tensors.append([name, lo, lo + span * size, size, numel, None, 0])

    def program(self):
        (x, y, z), (_, gy, gz) = _builder.grid_idx, _builder.grid_dim
        return (x * gy + y) * gz + z

    def access(self, kind, ptrs, mask):
        """The lanes of an access (mask on) that stay inside one of the launch's tensors; the others are
        recorded (named after the nearest tensor) and not performed."""
        addr = _np.asarray(ptrs.data, dtype=_np.uint64).astype(_np.int64)
        on = _np.broadcast_to(_np.asarray(mask.data, dtype=bool), addr.shape)
        width = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
        inside = _np.zeros(addr.shape, dtype=bool)
        which = _np.full(addr.shape, -1)
        for i, (_, lo, hi, _size, _n, _o, _m) in enumerate(self.tensors):
            hit = (addr >= lo) & (addr + width <= hi)
            which[hit & ~inside] = i
            inside |= hit
        bad = on & ~inside
        if bad.any():
            self._outside(kind, addr[bad])
        if kind == "store":
            self._stored(addr, on & inside, ~on & inside, which)
        return on & inside

    def _outside(self, kind, addrs):
        if not self.tensors:
            name, lo, size, numel = "?", 0, 1, 0
            idx = addrs
        else:
            dist = [_np.maximum(lo - addrs, addrs - hi + 1).min() for _, lo, hi, *_ in self.tensors]
            name, lo, _hi, size, numel, *_ = self.tensors[int(_np.argmin(dist))]
            idx = (addrs - lo) // size
        entry = self.outside.setdefault((kind, name), [set(), numel, self.program()])
        entry[0].update(int(i) for i in _np.unique(idx)[:100000])

    def _stored(self, addr, written, masked_off, which):
        pid = self.program()
        for i, t in enumerate(self.tensors):
            name, lo, _hi, size, numel, owner, _m = t
            t[6] += int((masked_off & (which == i)).sum())
            lanes = written & (which == i)
            if not lanes.any():
                continue
            if owner is None:
                owner = t[5] = _np.full((t[2] - lo) // size, -1, dtype=_np.int64)
            idx = _np.unique((addr[lanes] - lo) // size)
            prev = owner[idx]
            clash = (prev != -1) & (prev != pid)
            if clash.any():
                entry = self.races.setdefault(name, [set(), None])
                entry[0].update(int(j) for j in idx[clash])
                if entry[1] is None:
                    first = int(_np.flatnonzero(clash)[0])
                    entry[1] = (int(idx[first]), int(prev[first]), pid)
            owner[idx] = pid

    def findings(self):
        """Stores outside first (they overwrite memory), then races, then loads outside."""
        outside = [
            {
                "what": kind,
                "kernel": self.kernel,
                "tensor": name,
                "count": len(ids),
                "index": min(ids, key=abs),
                "numel": numel,
                "program": program,
            }
            for (kind, name), (ids, numel, program) in self.outside.items()
        ]
        races = [
            {
                "what": "race",
                "kernel": self.kernel,
                "tensor": name,
                "count": len(ids),
                "index": example[0],
                "programs": [example[1], example[2]],
            }
            for name, (ids, example) in self.races.items()
        ]
        return [f for f in outside if f["what"] == "store"] + races + [f for f in outside if f["what"] == "load"]

    def programs(self):
        return 0 if self.grid is None else int(self.grid[0] * self.grid[1] * self.grid[2])

    def stored_anywhere(self):
        return sum(int((t[5] != -1).sum()) for t in self.tensors if t[5] is not None)

    def written(self, tensor):
        """How many elements of `tensor` this launch stored into, and how many store lanes it masked off there."""
        lo = _t.data_ptr(tensor)
        hi = lo + _numel(_t.shape(tensor)) * _t.element_size(tensor)
        stored, masked = 0, 0
        for _name, tlo, thi, size, _n, owner, masked_inside in self.tensors:
            if tlo < hi and lo < thi:
                masked += masked_inside
                if owner is not None:
                    a, b = (max(lo, tlo) - tlo) // size, (min(hi, thi) - tlo) // size
                    stored += int((owner[a:b] != -1).sum())
        return stored, masked


class _Watch:
    """What the kernels launched during one probe did: Triton's interpreter runs one program after another, so
    a load or store outside its tensors is only seen here (inside a guard region it is harmless on the CPU and
    silent on a GPU), and so are two programs writing one element (a race on a GPU)."""

    def __init__(self):
        self.autotuned = []  # kernels run with their first config (kept: the autotuner caches its choice)
        self.hooks = ()  # the interpreter's load and store as _install_watch wrapped them
        self.start()

    def start(self):
        self.launches, self.current = [], None

    def findings(self):
        return [f for launch in self.launches for f in launch.findings()][:8]

    def written(self, tensor):
        """How the launches of this probe wrote `tensor`: elements stored there, store lanes masked off there,
        programs run, and elements stored anywhere (into another tensor, when none landed in `tensor`)."""
        stored = masked = 0
        for launch in self.launches:
            s, m = launch.written(tensor)
            stored, masked = stored + s, masked + m
        return {
            "interpreted": INTERPRET,
            "launches": len(self.launches),
            "programs": sum(launch.programs() for launch in self.launches),
            "stored": stored,
            "stored_anywhere": sum(launch.stored_anywhere() for launch in self.launches),
            "masked_inside": masked,
        }


_watch = _Watch()


def _install_watch():
    """Route the interpreter's loads, stores and launches through _watch (as triton.language is re-wrapped
    above); run an autotuned kernel with its first config (benchmarking needs a GPU driver)."""
    global _builder, _np
    try:
        import numpy as _np
        import triton.runtime.autotuner as autotuner
        import triton.runtime.interpreter as interpreter
    except ImportError:
        return
    _builder = interpreter.interpreter_builder
    load, store = _builder.create_masked_load, _builder.create_masked_store
    rmw, cas = _builder.create_atomic_rmw, _builder.create_atomic_cas
    Handle = interpreter.TensorHandle

    def masked(kind, ptrs, mask):
        launch = _watch.current
        if launch is None:
            return mask
        return Handle(launch.access(kind, ptrs, mask), mask.dtype)

    def checked_load(ptrs, mask, other, cache_policy, is_volatile):
        return load(ptrs, masked("load", ptrs, mask), other, cache_policy, is_volatile)

    def checked_store(ptrs, value, mask, cache_policy):
        return store(ptrs, value, masked("store", ptrs, mask), cache_policy)

    def checked_rmw(op, ptr, val, mask, sem, scope):
        return rmw(op, ptr, val, masked("load", ptr, mask), sem, scope)

    def checked_cas(ptr, cmp, val, sem, scope):
        everywhere = Handle(_np.ones(_np.shape(ptr.data), dtype=bool), interpreter.tl.int1)
        if not masked("load", ptr, everywhere).data.all():
            raise IndexError("atomic_cas outside the kernel's tensors")
        return cas(ptr, cmp, val, sem, scope)

    _builder.create_masked_load, _builder.create_masked_store = checked_load, checked_store
    _builder.create_atomic_rmw, _builder.create_atomic_cas = checked_rmw, checked_cas
    _watch.hooks = (checked_load, checked_store, checked_rmw, checked_cas)

    set_grid = _builder.set_grid_dim

    def grid_dim(nx, ny, nz):
        if _watch.current is not None:
            _watch.current.grid = (nx, ny, nz)
        return set_grid(nx, ny, nz)

    _builder.set_grid_dim = grid_dim
    executor = interpreter.GridExecutor
    run, to_host = executor.__call__, executor._init_args_hst

    def launch(self, *args, **kwargs):
        outer = _watch.current
        _watch.current = _Launch(getattr(self.fn, "__name__", "kernel"), None)
        try:
            return run(self, *args, **kwargs)
        finally:
            _watch.launches.append(_watch.current)
            _watch.current = outer

    def host_args(self, args_dev, kwargs):
        args_hst, kwargs_hst = to_host(self, args_dev, kwargs)
        launch = _watch.current
        if launch is not None:
            named = [*zip(self.arg_names, args_hst), *kwargs_hst.items()]
            for name, arg in named:
                arg = _getattr(arg, "base", arg)  # triton.reinterpret's TensorWrapper
                if _t.is_plain(arg):  # a tensor of another class is not the launch's: its accesses count outside
                    launch.add_tensor(name, arg)
        return args_hst, kwargs_hst

    def first_config(self, kwargs):
        name = getattr(getattr(self, "base_fn", None), "__name__", "kernel")
        if name not in _watch.autotuned:
            _watch.autotuned.append(name)
        return self.configs[:1]

    executor.__call__, executor._init_args_hst = launch, host_args
    autotuner.Autotuner.prune_configs = first_config


_builder = _np = None
if INTERPRET:
    os.environ["TRITON_INTERPRET"] = "1"
    _interpret_triton_library()
    _install_watch()


# ---------------------------------------------------------------- helpers (not probes)


def _op(name):
    return getattr(_ops.ex107, name).default


def _describe(t):
    """A tensor's metadata through judge.worker.tensors (a subclass is refused there)."""
    return _t.describe(t)


def _first_line(text):
    text = _str(text).strip()
    return text.splitlines()[0][:300] if text else ""


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


# ---------------------------------------------------------------- environment and schema


def environment(solution):
    """Where the kernels run here: {"device", "interpret", "triton"} (triton's version or None), and the
    autotuned kernels run so far with their first config."""
    triton = sys.modules.get("triton")
    return {
        "device": DEVICE,
        "interpret": INTERPRET,
        "triton": _getattr(triton, "__version__", None),
        "autotuned": list(_watch.autotuned),
        "triton_ops": _triton_ops(),
    }


def _triton_ops():
    """The ex107 operators registered with torch.library.triton_op (which the interpreter cannot run on meta
    or fake tensors), for the checker's explanation."""
    try:
        from torch._library.triton import triton_ops_to_kernels
    except ImportError:
        return []
    return sorted(str(name) for name in list(triton_ops_to_kernels) if str(name).startswith("ex107::"))


def op_exists(solution, name):
    return _op_exists(f"ex107::{name}")


def schema(solution, name):
    return _schema_of(f"ex107::{name}")


# ---------------------------------------------------------------- eager


def _guarded(x, guard=GUARD):
    """x as a contiguous view in the middle of a larger buffer: reads a little past x stay in memory this
    probe owns (on a GPU too), and the buffer whole shows whether anything around x changed."""
    flat = x.reshape(-1)
    fill = _full((guard,), -7.0, dtype=_t.dtype_of(x), device=_t.device(x))
    buf = _cat([fill, flat, fill])
    return buf, buf.narrow(0, guard, _numel(_t.shape(x))).view(_t.sizes(x))


def _notes():
    """What the interpreter saw during this probe: accesses outside the tensors, races, autotuned kernels; and
    whether the checks are still in place (a submission that unhooks them is not judged by what it left)."""
    found = _watch.findings()
    if _watch.hooks and _hooked() != _watch.hooks:
        found = [{"what": "unhooked", "kernel": "", "tensor": "", "count": 0, "index": 0}]
    return {"accesses": found, "autotuned": list(_watch.autotuned), "launches": len(_watch.launches)}


def _hooked():
    b = _builder
    return (b.create_masked_load, b.create_masked_store, b.create_atomic_rmw, b.create_atomic_cas)


def _driver_needed(exc):
    """Triton asked for a GPU driver under the interpreter (something benchmarks or queries the device)."""
    return "active drivers" in str(exc)


def eager(solution, x):
    """silu_and_mul(x) once on DEVICE, x a view inside a guarded buffer: the output, the buffer afterwards (the
    checker compares x and the memory around it with what it sent), whether the output shares memory with x,
    how many output elements the kernels wrote."""
    _watch.start()
    xbuf, x = _guarded(x.to(DEVICE))
    try:
        out = _op("silu_and_mul")(x)
    except RuntimeError as exc:
        if not _driver_needed(exc):
            raise
        return {"out": None, "type": "driver", "driver": _first_line(exc), **_notes()}
    notes = _notes()
    if not _t.is_plain(out):
        return {
            "out": _t.plain(out),
            "type": _t.type_name(out),
            "xbuf_after": _t.plain(xbuf),
            "shares_input_memory": False,
            "contiguous": False,
            "device": None,
            **notes,
        }
    return {
        "out": _t.plain(out),
        "type": _t.type_name(out),
        "xbuf_after": _t.plain(xbuf),
        "shares_input_memory": _t.storage_ptr(out) == _t.storage_ptr(x),
        "contiguous": _t.is_contiguous(out),
        "device": _t.device(out).partition(":")[0],
        "written": _watch.written(out),
        **notes,
    }


def out_variant(solution, xbuf, x_offset, x_shape, obuf, o_offset, o_shape):
    """silu_and_mul_out(x, out) where x and out are contiguous views inside larger buffers whose other
    elements (the guard regions) hold values the checker knows. Returns both buffers whole, what the
    operator returned, and what its kernels wrote into out."""
    _watch.start()
    xbuf, obuf = xbuf.to(DEVICE), obuf.to(DEVICE)
    x = xbuf.narrow(0, x_offset, _numel(x_shape)).view(x_shape)
    out = obuf.narrow(0, o_offset, _numel(o_shape)).view(o_shape)
    try:
        returned = _op("silu_and_mul_out")(x, out)
    except RuntimeError as exc:
        if not _driver_needed(exc):
            raise
        return {"xbuf": None, "obuf": None, "returned": "driver", "driver": _first_line(exc), **_notes()}
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return {
        "xbuf": _t.plain(xbuf),
        "obuf": _t.plain(obuf),
        "returned": _t.type_name(returned),
        "written": _watch.written(out),
        **_notes(),
    }


# ---------------------------------------------------------------- no data: meta and fake tensors


def meta(solution, shape, dtype):
    return _describe(_op("silu_and_mul")(_empty(*shape, dtype=dtype, device="meta")))


def fake(solution, x):
    with _FakeTensorMode() as mode:
        return _describe(_op("silu_and_mul")(mode.from_tensor(x.to(DEVICE))))


# ---------------------------------------------------------------- GPU tier: what opcheck looks at, torch.compile


def run_opcheck(solution, name, args):
    """What opcheck's tests look at on DEVICE, no input requiring grad (judge/worker/opobserve.py), with the
    schema they compare against, and what the interpreter saw; the checker decides each test
    (judge/checker/opchecks.py)."""
    _watch.start()
    args = tuple(a.to(DEVICE) if _t.is_plain(a) else a for a in args)
    return {"schema": _schema_of(f"ex107::{name}"), "data": _opcheck_data(_op(name), args), **_notes()}


def compiled(solution, xs, through_out):
    """torch.compile(fullgraph=True, backend="aot_eager", dynamic=True) of a block that calls
    silu_and_mul(x), or (through_out) allocates out and calls silu_and_mul_out(x, out); the outputs
    for each x in turn. The graphs Dynamo compiled are counted by the checker from what the judge's own backend
    reported through the channel as it compiled each (judge.worker.compiled)."""
    _watch.start()
    _dynamo_reset()
    functional, out_op = _op("silu_and_mul"), _op("silu_and_mul_out")

    def block(x):
        if not through_out:
            return functional(x)
        out = x.new_empty((*x.shape[:-1], x.shape[-1] // 2))
        out_op(x, out)
        return out

    try:
        fn = _compile(block, fullgraph=True, backend=_compiled.reporting("aot_eager"), dynamic=True)
        outs = [_t.plain(fn(x.to(DEVICE))) for x in xs]
    except RuntimeError as exc:
        if not _driver_needed(exc):
            raise
        return {"outs": [], "driver": _first_line(exc), **_notes()}
    finally:
        _dynamo_reset()
    return {"outs": outs, **_notes()}
