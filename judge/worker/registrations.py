"""The dispatcher's kernel table, watched: a submission registers kernels only in namespaces of its own.

A kernel registered over an operator of torch's (`Library("aten", "IMPL").impl("_to_copy", ...)`) runs whenever
anything calls that operator, the judge's own snapshots and copies included: a submission could make every
observation of a probe say what it likes. Every registration from Python goes through `torch._C._dispatch_library`
(a library handle on a namespace) and the methods of `torch._C._DispatchModule` (def, impl, fallback, reset...).
`install` puts stand-ins in their place that raise the EVENT audit event; the worker's guard holds the originals
(a `Gate`) and, while learner code is on the stack, lets a registration through only for a namespace that held no
operator before the worker armed (the exercise's own `ex100`, or any namespace the submission invents). Torch's
namespaces (aten, prims, quantized...), the judge's warm-up namespace, and library handles made before arming
are refused, with a message that names the operator. Trusted code with no learner frame below it (torch.compile
inside a probe) registers as it needs.

What no Python stand-in can see (native code registering at load, which the sandbox's noexec scratch and refused
ctypes keep out) is checked on the table itself: `table()` over every operator of the protected namespaces,
taken in the zygote and again when the worker's session ends (judge.worker.main).
"""

from __future__ import annotations

import sys
from typing import Any

import torch

EVENT = "judge.worker.register"
LIBRARY = "_dispatch_library"
# _DispatchModule's methods that change the table, and where each names its operator (None: it names none, so it
# can reach every operator: a fallback for a whole dispatch key).
METHODS = {
    "def_": 0,
    "def_legacy": 0,
    "def_name_t_t": 0,
    "def_schema_t_t": 0,
    "define": 0,
    "impl": 0,
    "impl_t_t": 0,
    "impl_with_aoti_compile": 1,  # (ns, op_name_with_overload, dispatch)
    "fallback": None,
    "fallback_fallthrough": None,
    "register_ad_inplace_or_view_fallback": 0,
    "reset": None,
}
_get_all_op_names = torch._C._dispatch_get_all_op_names
_dump = torch._C._dispatch_dump


def namespaces(_names=_get_all_op_names) -> frozenset[str]:
    """Every namespace that holds an operator now."""
    return frozenset(name.partition("::")[0] for name in _names())


def table(protected: frozenset[str], _names=_get_all_op_names, _dump=_dump, _hash=hash) -> dict[str, int]:
    """The dispatcher's table for the protected namespaces' operators: each operator's dump (every kernel, and
    where it was registered) as a hash. About 0.1 s for torch's ~3,600 operators."""
    return {name: _hash(_dump(name)) for name in _names() if name.partition("::")[0] in protected}


def _counts(protected: frozenset[str], _names=_get_all_op_names) -> dict[str, int]:
    """How many operators each protected namespace holds (a few ms): an operator defined there by any route."""
    counts = dict.fromkeys(protected, 0)
    for name in _names():
        namespace = name.partition("::")[0]
        if namespace in counts:
            counts[namespace] += 1
    return counts


# The table as the warm parent left it, taken once at the end of judge.worker.warmup: (protected namespaces, their
# operators' counts, the digest). A worker reads it into a closure (`checker`) before the submission is imported,
# so learner code that rebinds this module's globals changes nothing the check compares with.
_SETTLED: tuple[frozenset[str], dict[str, int], dict[str, int]] | None = None


def settle() -> None:
    """Take the table's state now: every worker forked after this compares with it when its session ends."""
    global _SETTLED
    protected = namespaces()
    _SETTLED = (protected, _counts(protected), table(protected))


def checker(gate: Gate, _counts=_counts, _table=table, _sorted=sorted, _len=len):
    """intact(full) -> None, or what changed: the protected namespaces' operators against the settled table (full:
    every kernel of every one of them, about 0.1 s; else how many operators each holds, a few ms), leaving out the
    operators trusted code registered through the gate (torch registers some of aten's kernels lazily, on first
    use). Made before the submission runs."""
    settled = _SETTLED
    explained = gate.explained

    def intact(full: bool) -> str | None:
        if settled is None:
            return None  # no warm-up ran (a worker started without the zygote's preload): nothing to compare with
        protected, counts, kernels = settled
        now = _counts(protected)
        defined = {name.partition("::")[0] for name in explained}
        grown = _sorted(ns for ns in now if now[ns] != counts.get(ns) and ns not in defined)
        if grown:
            return f"operators defined in the namespaces {grown}"
        if full:
            now_table = _table(protected)
            changed = _sorted(
                name for name, seen in now_table.items() if kernels.get(name) != seen and name not in explained
            )
            if changed:
                more = f" and {_len(changed) - 5} more" if _len(changed) > 5 else ""
                return f"kernels registered for {', '.join(changed[:5])}{more}"
        return None

    return intact


def _stand_in(name: str, method: bool):
    if method:

        def gated(self, *args, **kwargs):
            box: list[Any] = []
            sys.audit(EVENT, name, self, args, kwargs, box)
            return box[0] if box else None

    else:

        def gated(*args, **kwargs):  # type: ignore[misc]  # the same name, for torch._C's module-level function
            box: list[Any] = []
            sys.audit(EVENT, name, None, args, kwargs, box)
            return box[0] if box else None

    gated.__name__ = gated.__qualname__ = name
    return gated


class Gate:
    """The originals and the policy; only the guard's hook holds one (judge.worker.guard)."""

    def __init__(self, originals: dict[str, Any], protected: frozenset[str]):
        self.originals, self.protected = originals, protected
        self.namespace_of: dict[int, tuple[Any, str]] = {}  # id(library handle) -> (handle, its namespace)
        self.explained: set[str] = set()  # operators of protected namespaces trusted code registered through here

    def refusal(self, name: str, target: Any, args: tuple[Any, ...], learner: bool) -> str | None:
        """Why this registration is refused (learner: learner code is on the stack), or None."""
        if not learner:
            return None
        if name == LIBRARY:
            namespace = args[1] if len(args) > 1 and type(args[1]) is str else None
            if namespace is None or namespace in self.protected:
                return f"making a library on the namespace {namespace!r}, which holds torch's operators"
            return None
        known = self.namespace_of.get(id(target))
        if known is None or known[0] is not target:
            return f"registering through a library handle made before your file was imported ({name})"
        position = METHODS.get(name)
        if position is None:
            if name == "reset" and known[1] not in self.protected and known[1] != "_":
                return None
            return f"{name} on a library (it reaches every operator, not only your own)"
        op = args[position] if len(args) > position and type(args[position]) is str else ""
        namespace = op.partition("::")[0] if "::" in op.partition("(")[0] else known[1]
        if name == "impl_with_aoti_compile" and args and type(args[0]) is str:
            namespace = args[0]
        if namespace == "_" or namespace in self.protected:
            return f"registering {name} for {op or '?'} in the namespace {namespace!r}, which holds torch's operators"
        return None

    def call(self, name: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The original, called; a new library handle's namespace is recorded, and so is an operator of a protected
        namespace that a registration let through names (trusted code's: the table check leaves it out)."""
        real = self.originals[name]
        if name == LIBRARY:
            handle = real(*args, **kwargs)
            namespace = args[1] if len(args) > 1 and type(args[1]) is str else "?"
            self.namespace_of[id(handle)] = (handle, namespace)
            return handle
        op = self.operator(name, target, args)
        if op is not None and op.partition("::")[0] in self.protected:
            self.explained.add(op)
        return real(target, *args, **kwargs)

    def operator(self, name: str, target: Any, args: tuple[Any, ...]) -> str | None:
        """The qualified operator a registration names ("aten::addr"), or None when it names none or is unknown."""
        position = METHODS.get(name)
        known = self.namespace_of.get(id(target))
        if position is None or len(args) <= position or type(args[position]) is not str:
            return None
        op = args[position].partition("(")[0].partition(".")[0]
        if name == "impl_with_aoti_compile" and type(args[0]) is str:
            return f"{args[0]}::{op}"
        if "::" in op:
            return op
        return f"{known[1]}::{op}" if known is not None else None


def install() -> Gate:
    """Put the stand-ins in place (torch._C and its _DispatchModule class); the Gate holding the originals."""
    module = torch._C
    dispatch_module = module._DispatchModule
    originals: dict[str, Any] = {LIBRARY: getattr(module, LIBRARY)}
    setattr(module, LIBRARY, _stand_in(LIBRARY, method=False))
    for name in METHODS:
        if name in dispatch_module.__dict__:
            originals[name] = dispatch_module.__dict__[name]
            setattr(dispatch_module, name, _stand_in(name, method=True))
    return Gate(originals, namespaces())
