"""Doors to frames that raise no audit event (dynamo's eval-frame callbacks, gc's saved cycles, threads) for the guard.

`torch._C._dynamo.eval_frame.set_eval_frame(callback)` makes CPython call `callback` with every new Python
frame (its globals, locals and f_back): a learner's callback could swap a probe's helpers in the probe's own
globals while it runs and put them back before the reply. The other functions here install similar hooks or
read frames' value stacks. `install` replaces every module-level reference to them (torch's C module and the
modules that imported them) with a stand-in that raises the EVENT audit event; the guard's hook
holds the originals, calls them when no learner code is on the stack (torch.compile inside a probe) or when
the call only turns a hook off, and refuses otherwise.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
from typing import Any

EVENT = "judge.worker.torch"
GATED = (
    "set_eval_frame",
    "set_guard_error_hook",
    "set_guard_complete_hook",
    "set_bytecode_debugger_callback",
    "set_code_exec_strategy",
    "set_skip_guard_eval_unsafe",
    "register_breakpoint_code",
    "_load_precompile_entry",
    "_reset_precompile_entries",
    "_get_frame_value_stack_with_depth",
    "_debug_get_cache_entry_list",
    "_get_cache_entries_for_region",
    "get_eval_frame_callback",  # the installed callback holds the compiling probe's backend and its data
    "get_bytecode_debugger_callback",
)
# Outside torch: gc.set_debug(gc.DEBUG_SAVEALL) keeps every collected cycle in gc.garbage, frames included;
# a thread of the learner's runs beside the loop's checks (3.11 raises no audit event for a new thread).
OTHER = {"gc": ("set_debug",), "_thread": ("start_new_thread", "start_new"), "threading": ("_start_new_thread",)}
WHAT = {
    "current_tx": "reading dynamo's live tracer (InstructionTranslator.current_tx)",
    "swap_current_tx": "setting dynamo's live tracer",
    "set_debug": "keeping the garbage collector's cycles (gc.DEBUG_SAVEALL)",
    "start_new_thread": "starting threads",
    "start_new": "starting threads",
    "_start_new_thread": "starting threads",
}
SETTERS = frozenset(
    {"set_eval_frame", "set_guard_error_hook", "set_guard_complete_hook", "set_bytecode_debugger_callback"}
)  # harmless with None or False: they turn a hook off


def _stand_in(name: str):
    def gated(*args, _audit=sys.audit, _event=EVENT, _name=name, _list=list):
        box = _list()
        _audit(_event, _name, args, box)
        return box[0] if box else None

    gated.__name__ = gated.__qualname__ = name
    return gated


def _tracer_holder() -> dict[str, Any]:
    """Dynamo's live tracer, kept where only the hook reaches it.

    During a compiled probe dynamo calls the learner's fake while it traces the probe's function, and its
    tracer (InstructionTranslator) holds that frame's locals and globals and the probe's backend with whatever
    it records: a frame by another name. Dynamo keeps it in a module-level threading.local that any code can
    read (`symbolic_convert.tls.current_tx`). The stand-ins below keep it in this closure instead, per thread,
    and hand it out through the hook, which refuses it while learner code is on the stack."""
    held: dict[int, Any] = {}
    ident = threading.get_ident

    def current_tx(_ident=ident, _held=held):
        try:
            return _held[_ident()]
        except KeyError:
            raise AttributeError("current_tx") from None  # as dynamo's tls raised when no tracer is set

    def swap_current_tx(tx, _ident=ident, _held=held):
        me = _ident()
        prior = _held.get(me)
        if tx is None:
            _held.pop(me, None)
        else:
            _held[me] = tx
        return prior

    return {"current_tx": current_tx, "swap_current_tx": swap_current_tx}


def _install_tracer_gate(reals: dict[str, Any]) -> None:
    module = sys.modules.get("torch._dynamo.symbolic_convert")
    translator = getattr(module, "InstructionTranslator", None)
    if translator is None:
        return
    reals.update(_tracer_holder())
    get, swap = _stand_in("current_tx"), _stand_in("swap_current_tx")

    @contextlib.contextmanager
    def set_current_tx(self, _swap=swap):
        prior = _swap(self)
        try:
            yield
        finally:
            _swap(prior)

    translator.current_tx = staticmethod(get)
    translator.set_current_tx = set_current_tx
    tls = getattr(module, "tls", None)
    if tls is not None and hasattr(tls, "current_tx"):
        del tls.current_tx  # none is live while the worker arms; from now on none is kept there


class Unlisted(dict):  # type: ignore[type-arg]
    """Dynamo's registry of every torch.compile context's innermost backend (`eval_frame.cached_backends`, kept
    only so that `torch._dynamo.reset()` can reset them), made to keep none.

    A compiled probe's backend holds what it records (a graph list, a CompileCounter's frame_count), and a fake
    that dynamo calls while tracing could read the registry and change those records (`cached_backends_*` in
    the red-team corpus). The probes make a fresh backend for every compile and reset dynamo around it, so
    nothing needs the registry; the binding itself is watched by identity (integrity.WATCHED_DATA)."""

    def setdefault(self, key, default=None):
        return default

    def __setitem__(self, key, value) -> None:
        pass

    def update(self, *args, **kwargs) -> None:
        pass


def _unlist_backends() -> None:
    module = sys.modules.get("torch._dynamo.eval_frame")
    if module is not None and hasattr(module, "cached_backends"):
        setattr(module, "cached_backends", Unlisted())  # noqa: B010 - a module found at run time, not imported


def install() -> dict[str, Any]:
    """Put stand-ins in place of the gated functions everywhere a module or class names them; the originals."""
    reals: dict[str, Any] = {}
    _install_tracer_gate(reals)
    _unlist_backends()
    module = sys.modules.get("torch._C._dynamo.eval_frame")
    if module is not None:
        reals.update((name, getattr(module, name)) for name in GATED if hasattr(module, name))
    for module_name, names in OTHER.items():
        other = sys.modules.get(module_name)
        for name in names:
            if other is not None and hasattr(other, name):
                reals[name] = getattr(other, name)
                setattr(other, name, _stand_in(name))
    by_id = {id(fn): _stand_in(name) for name, fn in reals.items()}
    wanted = by_id.keys()
    for namespace in _namespaces():
        if wanted.isdisjoint(map(id, namespace.values())):  # C-level scan: most modules name none of them
            continue
        for key, value in list(namespace.items()):
            stand_in = by_id.get(id(value))
            if stand_in is not None and type(key) is str:
                namespace[key] = stand_in
    return reals


# The modules that import the gated functions by name (torch 2.13: torch._dynamo.*, torch.compiler); everything
# else reaches them as attributes of torch's C module, which is patched too.
IMPORTERS = ("torch._dynamo", "torch.compiler", "torch._C._dynamo")


def _namespaces(_module_dict=types.ModuleType.__dict__["__dict__"].__get__):  # type: ignore[index]  # see integrity._MODULE_DICT
    """The dicts of the modules that may name the gated functions."""
    for name, mod in list(sys.modules.items()):
        if name.startswith(IMPORTERS) and isinstance(mod, types.ModuleType):
            yield _module_dict(mod)
