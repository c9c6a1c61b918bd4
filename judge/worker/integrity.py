"""A snapshot of the code the worker trusts (functions, classes, their methods) and a check that none was rebound.

Probes observe the learner's operator with torch's own Python code (opcheck, torch.compile, the
dispatcher helpers in judge.worker.observe). A submission that rebinds one of those functions, or a
method of one of their classes, could make a probe observe what it likes. The snapshot is taken
before the submission is imported; the guard checks it before every reply leaves the worker.

Reads go through the base types' own descriptors and only compare identities, and any key that is not
an exact str is itself a change, so the check never calls code the submission defined. Values that
are plain data (counters, caches, flags) are not watched: torch rebinds those itself.

`watch` makes the check the guard runs before each reply: the same answer as `first_change`, but a dict whose
version tag (PEP 509) has not moved since it was last found intact is not read again.
"""

from __future__ import annotations

import ctypes
import gc
import itertools
import operator
import struct
import sys
import types
from collections.abc import Callable
from typing import Any

# The C descriptors themselves, read from the classes' own mappings (typeshed types ModuleType.__dict__ as an
# instance's attribute, hence the ignore).
_MODULE_DICT = types.ModuleType.__dict__["__dict__"].__get__  # type: ignore[index]
_CLASS_DICT = type.__dict__["__dict__"].__get__
# (where, namespace, keys, values); keys None: a list's or set's items, compared in order or by identity.
Entry = tuple[str, Any, "tuple[str, ...] | None", Any]
Snapshot = tuple[Entry, ...]
_QUALNAME = type.__dict__["__qualname__"].__get__
_FLAGS = type.__dict__["__flags__"].__get__
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: setattr on the class raises, nothing to watch
_CODE_KINDS = frozenset(
    map(
        id,
        (
            types.FunctionType,
            types.BuiltinFunctionType,
            types.MethodDescriptorType,
            types.WrapperDescriptorType,
            types.ClassMethodDescriptorType,
            staticmethod,
            classmethod,
            property,
        ),
    )
)
# The code probes run to observe: the judge's own modules and the parts of torch they call into. The rest
# of torch is not watched: it rebinds its own registries at run time (torch.compiler's cache factories,
# inductor's lowerings), and a probe does not trust it to observe.
WATCHED_MODULES = frozenset(
    {
        # the standard library the worker's own loop, the channel's encoding and the probes call into
        "builtins",
        "sys",
        "os",
        "posix",
        "gc",
        "types",
        "functools",
        "operator",
        "_operator",
        "collections",
        "copyreg",
        "pickle",
        "_pickle",
        "io",
        "_io",
        "struct",
        "_struct",
        "zipfile",
        "socket",
        "_socket",
        "_thread",
        "threading",
        "weakref",
        "_weakref",
        "abc",
        "_abc",
        "contextlib",
        "enum",
        "re",
        "math",
        "warnings",
        "traceback",
        "linecache",
        "inspect",
        "dataclasses",
        "itertools",
        "typing",
        # torch's own entry points
        "torch",
        "torch._ops",
        "torch.library",
        "torch.serialization",
        "torch._weights_only_unpickler",
        "torch.utils._python_dispatch",
        "torch.fx.experimental.symbolic_shapes",
        "torch.fx.node",  # the graphs the judge's backend reports (judge.worker.compiled) are read through these
        "torch.fx.graph",
        "torch._dynamo.testing",
    }
)
# Data bindings of torch's that the worker's own defences rely on (judge.worker.torchgate put them in place):
# watched by identity, so that learner code cannot rebind them to an object of its own between checks.
WATCHED_DATA = {
    "torch._dynamo.eval_frame": ("cached_backends",),
    "torch._dynamo.symbolic_convert": ("tls",),
}
WATCHED_PACKAGES = (
    "judge.",
    "sandbox.",
    "torch._C.",
    "torch._library.",
    "torch.testing.",
    "torch._subclasses.",
    "torch.autograd.",
)


def _watched(value) -> bool:
    kind = type(value)  # compared by identity: a metaclass's __eq__ is the submission's or slow
    return id(kind) in _CODE_KINDS or issubclass(kind, (type, types.ModuleType))


def _freeze(namespace, everything: bool = False) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """(keys, values) of the watched bindings of `namespace` (every binding if `everything`)."""
    items = [
        (key, value)
        for key, value in namespace.items()
        if type(key) is str and (everything or key == "__builtins__" or _watched(value))
    ]
    return tuple(key for key, _ in items), tuple(value for _, value in items)


def is_watched(name: str) -> bool:
    """Whether `take()` without `only` snapshots module `name`."""
    return name in WATCHED_MODULES or name + "." in WATCHED_PACKAGES or name.startswith(WATCHED_PACKAGES)


def _data_bindings() -> list[Entry]:
    """Snapshot entries for WATCHED_DATA: just those names of those modules, each compared by identity."""
    entries: list[Entry] = []
    for name, keys in WATCHED_DATA.items():
        module = sys.modules.get(name)
        if module is None:
            continue
        namespace = _MODULE_DICT(module)
        present = tuple(key for key in keys if key in namespace)
        entries.append((f"{name} data", namespace, present, tuple(namespace[key] for key in present)))
    return entries


def take(extra_modules=(), only=None, classes_of=None) -> Snapshot:
    """((where, namespace, keys, values), ...) for the WATCHED modules (or the loaded ones named in `only`),
    `extra_modules`, and their classes (only those of the modules named in `classes_of`, if given).

    In `extra_modules` (the probes) data is watched too, and so are the contents of the containers they hold
    (a dict, list or set, or the dict behind a read-only mapping): a probe reads its constants (the
    operator's namespace, tables of programs) at call time, and nothing there is the probe's to change."""
    modules = {
        name: module
        for name, module in list(sys.modules.items())
        if issubclass(type(module), types.ModuleType) and (name in only if only is not None else is_watched(name))
    }
    extra = {id(module) for module in extra_modules}
    for module in extra_modules:
        modules[module.__name__] = module
    entries: list[Entry] = []
    classes: dict[int, tuple[str, type]] = {}
    for name, module in modules.items():
        namespace = _MODULE_DICT(module)
        keys, values = _freeze(namespace, everything=id(module) in extra)
        entries.append((name, namespace, keys, values))
        if id(module) in extra:
            entries += _contents(name, keys, values)
        if classes_of is not None and name not in classes_of:
            continue
        for value in values:
            if issubclass(type(value), type) and not _FLAGS(value) & _IMMUTABLE_TYPE:
                classes.setdefault(id(value), (f"{name}.{_QUALNAME(value)}", value))
    for where, cls in classes.values():
        namespace = _CLASS_DICT(cls)
        entries.append((where, namespace, *_freeze(namespace)))
    if only is None:
        entries += _data_bindings()
    return tuple(entries)


def _contents(where: str, keys: tuple[str, ...], values: tuple[Any, ...]) -> list[Entry]:
    """Entries for the containers among a namespace's values, read as {position or key: item}.

    A read-only mapping is no protection (`proxy == X()` hands X.__eq__ the dict behind it), so its dict is
    watched; lists and sets are watched as {index: item}, read back through a fresh copy at check time."""
    found: list[Entry] = []
    for key, value in zip(keys, values):
        kind = type(value)
        if kind in (dict, types.MappingProxyType) and not all(type(k) is str for k in value):
            continue  # not a table of names: only what it is bound to is watched
        if kind is dict:
            found.append((f"{where}.{key}[...]", value, *_freeze(value, everything=True)))
        elif kind is types.MappingProxyType:
            found.append((f"{where}.{key}[...]", value, *_freeze(dict(value.items()), everything=True)))
        elif kind is list or kind is set:  # keys None: the items themselves, compared in order (sets by identity)
            found.append((f"{where}.{key}[...]", value, None, _items(value)))
    return found


def _items(container, _type=type, _set=set, _frozenset=frozenset, _map=map, _id=id, _tuple=tuple):
    return _frozenset(_map(_id, container)) if _type(container) is _set else _tuple(container)


def first_change(
    snapshot: Snapshot,
    _type=type,
    _str=str,
    _map=map,
    _all=all,
    _zip=zip,
    _is=operator.is_,
    _repeat=itertools.repeat,
    _len=len,
    _tuple=tuple,
    _items=_items,
) -> str | None:
    """'module.name' of the first watched binding that is no longer what it was, or None.

    Builtins are bound at definition: the learner may have rebound them by the time this runs. The loops run
    in C (map over identity tests), and keys are checked to be exact str before any lookup, so that a
    lookup cannot call the __eq__ of a key the learner planted."""
    for where, namespace, keys, values in snapshot:
        if keys is None:
            now = _items(namespace)
            if (
                _type(now) is _tuple
                and (_len(now) != _len(values) or not _all(_map(_is, now, values)))
                or _type(now) is not _tuple
                and now != values
            ):
                return where
            continue
        if not _all(_map(_is, _map(_type, namespace), _repeat(_str))):
            return f"{where} (a key that is not a string)"
        if not _all(_map(_is, _map(namespace.get, keys), values)):
            for key, value in _zip(keys, values):
                if namespace.get(key) is not value:
                    return f"{where}.{key}"
    return None


# PEP 509: CPython 3.11 to 3.13 keep in every dict a version tag that each change to it moves to a new value
# of one global counter, right after the object's header and its size. 3.14 dropped it: `_tags_move` then
# finds that it does not move, and every check reads every binding.
_TAG_OFFSET = 3 * struct.calcsize("P")
# The C getter itself, bound now: a learner who sets `value` on ctypes' classes changes what attribute lookup
# finds, never this descriptor.
_READ_TAG = ctypes._SimpleCData.__dict__["value"].__get__


def _tag_of(namespace) -> ctypes.c_uint64 | None:
    """A view of the version tag of the exact dict that `namespace` is or (a read-only mapping) wraps, or None."""
    target = namespace
    if type(namespace) is types.MappingProxyType:
        inner = gc.get_referents(namespace)  # the proxy's one referent is what it wraps
        target = inner[0] if len(inner) == 1 else None
    if type(target) is not dict:
        return None
    return ctypes.c_uint64.from_address(id(target) + _TAG_OFFSET)


def _tags_move() -> bool:
    """Whether this interpreter keeps tags where `_tag_of` reads, moving them on every change and only then."""
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] < (3, 14):
        return False
    probe: dict[str, object] = {"a": object()}
    tag = _tag_of(probe)
    if tag is None:
        return False
    seen = [_READ_TAG(tag)]
    probe["a"] = object()  # a value replaced: neither the size nor the keys' table changes
    seen.append(_READ_TAG(tag))
    probe["b"] = 1
    seen.append(_READ_TAG(tag))
    del probe["b"]
    seen.append(_READ_TAG(tag))
    return len(set(seen)) == len(seen) and _READ_TAG(tag) == seen[-1]


TAGS = _tags_move()


def watch(snapshot: Snapshot) -> Callable[[], str | None]:
    """A check that answers as first_change(snapshot) does, reading again only the dicts whose version tag moved
    since the check last found everything intact (and every entry that has no tag). The first call reads all:
    the tags are not read with the snapshot, and what ran between could have changed a binding.

    For a worker of exercise 100 (1,333 entries): 4 to 6 ms to read them all, 0.2 ms when nothing moved."""
    if not TAGS:
        return lambda: first_change(snapshot)
    tags = tuple(_tag_of(entry[1]) if entry[2] is not None else None for entry in snapshot)
    untagged = tuple(tag is None for tag in tags)
    # An entry without a tag (a list, a set, a mapping that is not a dict) reads a constant and is always read.
    readers = tuple(ctypes.c_uint64(0) if tag is None else tag for tag in tags)
    verified = [(-1,) * len(readers)]  # matches no tag: the first check reads every entry

    def check(
        _read=_READ_TAG,
        _tuple=tuple,
        _map=map,
        _ne=operator.ne,
        _or=operator.or_,
        _compress=itertools.compress,
        _first=first_change,
    ) -> str | None:
        now = _tuple(_map(_read, readers))  # read before the entries they vouch for
        where = _first(_tuple(_compress(snapshot, _map(_or, _map(_ne, now, verified[0]), untagged))))
        if where is None:
            verified[0] = now
        return where

    return check
