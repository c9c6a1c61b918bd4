"""Who may hold a frame in the worker: the guard's policy for the audited routes that hand out frames.

A frame reaches every local and global of the code it runs (the serve loop's, a probe's), so learner code
must never hold one. CPython 3.11 hands frames out through `sys._getframe` and the attributes `tb_frame`,
`gi_frame`, `cr_frame`, `ag_frame` (each raises an audit event; `f_back` does not, so the first frame is the
one to refuse). The guard asks `allowed(requester)` about the frame whose code asked, walking to its callers:

- the first frame met that is a CONSUMER allows it: a named helper (CONSUMERS: the traceback formatters,
  logging's caller lookup, warnings, and the few torch helpers a valid solution reaches) that takes frames and
  gives its caller only text or summaries, provided the consumer runs with its own module's globals (not a
  function rebuilt on its code with globals the learner chose) and the guard finds the modules consumers call
  into unchanged. Every other function, torch's included, is not a consumer: the walk goes on to its caller,
  so a helper that hands frames on (torch._jit_internal.createResolutionCallbackFromFrame, inspect.stack,
  fx's and dynamo's user-frame lookups) is refused when learner code called it. Deny by default: a helper
  missing from the list costs a refusal, never a frame;
- the first frame met that is learner code (any code whose file is not under the interpreter's, the
  site-packages', the judge's or the probes' paths) refuses it: so `inspect.currentframe()`, `inspect.stack()`
  or `traceback.walk_stack()` called by a learner's kernel are refused (they hand the frame up to it),
  while `traceback.format_stack()` and `logging` in the same kernel work;
- a stack with no learner code at all (torch.compile tracing a probe) is the judge's own business.

Code the learner compiles cannot take a trusted file name (judge.worker.guard refuses `compile`,
`code.__new__` and `marshal.loads` with such names from learner code). What this cannot see is listed in
docs/threat-model.md.
"""

from __future__ import annotations

import inspect  # noqa: F401 - loaded before arming, so that the guard's snapshot of what consumers call holds them
import linecache  # noqa: F401
import logging  # noqa: F401
import os
import sys
import sysconfig
import traceback

FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
CONSUMERS = frozenset(
    {
        ("traceback", "extract_stack"),
        ("traceback", "format_stack"),
        ("traceback", "print_stack"),
        ("traceback", "StackSummary._extract_from_extended_frame_gen"),
        ("logging", "Logger.findCaller"),
        ("typing", "_caller"),
        ("typing_extensions", "_caller"),
        ("typing_extensions", "_has_generic_or_protocol_as_origin"),
        ("collections", "namedtuple"),
        ("enum", "EnumType._create_"),
        ("warnings", "warn"),
        ("torch.library", "Library.__init__"),
        ("torch.library", "Library._register_fake"),
        ("torch._library.utils", "get_source"),
        ("torch.fx.experimental.symbolic_shapes", "ShapeEnv._get_stack_summary"),
        ("torch.fx.experimental.symbolic_shapes", "expect_true"),  # the caller's file and line, as text
        ("torch._custom_op.impl", "CustomOp._register_impl"),  # the registering line, as text
        ("torch.fx.proxy", "Proxy.__iter__"),  # reads the calling code's bytecode (fx tracing a loop)
        ("torch.fx.proxy", "Proxy.__bool__"),
        ("torch._dynamo.guards", "GuardBuilder._set_guard_export_info"),
    }
)
LEARNER, TRUSTED, CONSUMER = range(3)
# What consumers call into (their module globals and classes): checked unchanged before one is allowed a frame.
CONSUMER_CLASSES = frozenset({"traceback", "logging"})  # StackSummary, FrameSummary, Logger: the rest is module-level
CONSUMER_MODULES = frozenset(
    {
        "builtins",
        "sys",
        "os",
        "posixpath",
        "io",
        "itertools",
        "collections",
        "linecache",
        "traceback",
        "logging",
        "typing",
        "typing_extensions",
        "inspect",
        "torch.library",
        "torch._library.utils",
        "torch.fx.experimental.symbolic_shapes",
        "torch._dynamo.guards",
    }
)


def trusted_roots(extra=()) -> tuple[str, ...]:
    """File-name prefixes of code the worker trusts: the interpreter, site-packages, the judge and sandbox."""
    judge_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sysconfig.get_paths()
    roots = {
        paths["stdlib"],
        paths["platstdlib"],
        paths["purelib"],
        paths["platlib"],
        judge_dir,
        os.path.join(os.path.dirname(judge_dir), "sandbox"),
    }
    return tuple(sorted(r.rstrip(os.sep) + os.sep for r in roots if r)) + ("<frozen ",) + tuple(extra)


def judge_roots(extra=()) -> tuple[str, ...]:
    """File-name prefixes of the judge's own code and the probes: frames a stack summary never names."""
    judge_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (judge_dir + os.sep, os.path.join(os.path.dirname(judge_dir), "sandbox") + os.sep) + tuple(extra)


def hide_judge_frames(hidden: tuple[str, ...], _traceback=traceback, _type=type, _str=str) -> None:
    """Make the stack summaries learner code can ask for (traceback.extract_stack, format_stack, print_stack,
    all of which walk through traceback.walk_stack) skip the judge's and the probes' frames, so that no probe
    or judge function name tells the learner's code what is observing it. Installed before the integrity
    snapshot, which then watches the binding; the consumers' policy above still decides who gets frames."""
    walk = _traceback.walk_stack

    def walk_stack(f, _walk=walk, _hidden=hidden, _type=_type, _str=_str):
        for frame, lineno in _walk(f):
            name = frame.f_code.co_filename
            if _type(name) is _str and name.startswith(_hidden):
                continue
            yield frame, lineno

    walk_stack.__doc__ = walk.__doc__
    _traceback.walk_stack = walk_stack


def is_trusted_name(filename, roots: tuple[str, ...], _type=type, _str=str) -> bool:
    """Whether code compiled under `filename` would pass for the judge's (anything not exactly a str would not)."""
    return _type(filename) is not _str or filename.startswith(roots)


def make_classifier(
    roots: tuple[str, ...],
    learner_names=(),
    _type=type,
    _str=str,
    _dict=dict,
    _module=type(sys),  # noqa: B008 - bound at definition, before learner code can rebind type
    _modules=sys.modules,
    _module_dict=type(sys).__dict__["__dict__"].__get__,  # type: ignore[index]  # noqa: B008 - see integrity._MODULE_DICT
):
    """classify(frame) -> (LEARNER | TRUSTED | CONSUMER, module name). Names are bound now, before the import,
    and nothing it calls is the learner's (exact types are checked before any comparison)."""
    consumers = frozenset(CONSUMERS)
    learner_names = frozenset(learner_names)

    def classify(frame) -> tuple[int, str | None]:
        code = frame.f_code
        filename = code.co_filename
        if _type(filename) is not _str or not filename.startswith(roots) or filename in learner_names:
            return LEARNER, None
        globals_ = frame.f_globals
        name = globals_.get("__name__") if _type(globals_) is _dict else None
        if _type(name) is not _str:
            return TRUSTED, None
        key = (name, code.co_qualname)
        if key not in consumers:  # deny by default: only a named consumer ends the walk with a frame
            return TRUSTED, name
        module = _modules.get(name)
        if _type(module) is not _module or _module_dict(module) is not globals_:
            return LEARNER, name  # a consumer's code run with globals that are not its module's
        file = globals_.get("__file__")
        return (CONSUMER if _type(file) is _str and file == filename else LEARNER), name

    return classify


def make_policy(classify, consumers_intact, _depth=256):
    """allowed(requester) -> bool for a frame-handing event raised in `requester`'s code.

    consumers_intact(module name) says whether the consumer's module and what consumers call are unchanged
    (a consumer hands frames to the names it looks up: `logging.traceback = X` would give X the frame)."""

    def allowed(frame) -> bool:
        depth = 0
        while frame is not None and depth < _depth:
            kind, name = classify(frame)
            if kind == CONSUMER:
                return consumers_intact(name)
            if kind == LEARNER:
                return False
            frame, depth = frame.f_back, depth + 1
        return frame is None

    return allowed


def make_stack_check(classify, _depth=1024):
    """no_learner(frame) -> bool: no learner code anywhere from `frame` to the bottom of the stack."""

    def no_learner(frame) -> bool:
        depth = 0
        while frame is not None and depth < _depth:
            if classify(frame)[0] == LEARNER:
                return False
            frame, depth = frame.f_back, depth + 1
        return frame is None

    return no_learner
