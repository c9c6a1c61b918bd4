"""The worker's guard: once armed, only the worker's own serve loop can use the checker's channel.

Before the submission is imported, `arm` installs an audit hook (sys.addaudithook: it cannot be removed
or listed) and, on Linux, a seccomp filter (sandbox.seccomp_filter.fence).

- The channel's descriptor has no socket object. The filter lets it be used only by sendmsg and
  recvmsg, which Python reaches only through a socket object, and the hook refuses to make one except
  inside itself: os.write, dup, /proc/self/fd, pidfd_getfd and `socket.socket(fileno=...)` all fail.
- The serve loop sends and receives with `sys.audit(SEND | RECV, ...)`. The hook serves those events
  only when their caller is the serve loop's own frame, on the main thread; the learner's code is always
  a frame above that one, so a forged event is refused. The socket object the hook makes for one frame
  lives with the garbage collector off and is detached before the hook returns.
- Before a frame leaves, the hook compares the trusted code against a snapshot taken before the import
  (judge.worker.integrity) and checks that no torch mode was left pushed; a change replaces the reply by
  {"tampered": True} (what changed goes to stderr), which the checker turns into a runtime error.
- The hook also refuses what would let learner code reach the hook's own frame or the loop's objects:
  frames for learner code (judge.worker.frames: sys._getframe, tb_frame, gi/cr/ag_frame, unless a helper
  that turns them into text asked), code compiled under a trusted file name, new audit hooks, trace and
  profile functions, other threads' frames, the garbage collector's object lists, ctypes, CPython's test
  modules, socket objects and sendmsg outside its own send, and replacing the code or defaults of a
  function the judge trusts. Doors to frames with no audit event (dynamo's eval-frame callbacks,
  gc.DEBUG_SAVEALL, new threads) are stand-ins whose originals only the hook holds (judge.worker.torchgate).
  The filter refuses installing signal handlers, memfd_create and any new socket.

The sandbox adds the rest (judge.grading.passes asks for it): a noexec scratch folder, so no library the learner
compiles can be loaded, and Landlock, which allows no writes to /proc/self/mem. What stays possible is
documented in docs/threat-model.md (code already on the host, interpreter bugs, changes made and undone
while a probe runs the learner's operator, other threads).
"""

from __future__ import annotations

import _socket
import _thread
import gc
import os
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.utils._device

try:
    import resource
except ImportError:  # Windows: no rlimits, and no fence to work around
    resource = None  # type: ignore[assignment]  # checked for None where rlimits are used

from judge.report.catalog import MESSAGES
from judge.wire.channel import HEADER, encode
from judge.wire.replies import check_reply
from judge.worker import compiled, frames, integrity, registrations, torchgate
from sandbox import seccomp_filter

SEND = "judge.worker.send"
RECV = "judge.worker.recv"
REFUSED = types.MappingProxyType(
    {
        "sys.addaudithook": "adding audit hooks",
        "sys.settrace": "trace functions",
        "sys.setprofile": "profile functions",
        "sys._current_frames": "reading other threads' frames",
        "gc.get_objects": "listing the garbage collector's objects",
        "gc.get_referrers": "listing the garbage collector's objects",
        "gc.get_referents": "listing the garbage collector's objects",
        "socket.__new__": "creating sockets",
        "socket.sendmsg": "sending on sockets",
    }
)
FRAME_EVENT = "sys._getframe"
MADE_CODE = frozenset({"compile", "code.__new__"})
LOADED_CODE = frozenset({"marshal.loads", "marshal.load"})  # their second argument is the new code's file name
FUNCTION_FIELDS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})


class GuardRefused(PermissionError):
    """Raised in the learner's code for an operation the judge's worker does not allow."""


_REFUSED = MESSAGES["worker.refused"][1]


def _refuse(what: str) -> GuardRefused:
    return GuardRefused(f"{_REFUSED}: {what}")


def _report(where: str, _write=os.write) -> None:
    """Name the change on stderr (the learner sees it in a public run); the checker gets only the fact."""
    try:
        _write(2, f"judge: the submission changed {where}; no further result is believed\n".encode())
    except OSError:
        pass


@dataclass(frozen=True)
class Prepared:
    """What the guard takes before it knows the learner's file (`prepare`): torch's stand-ins and the dispatcher's
    doors installed, and the snapshot of the code it trusts. `arm` finishes the guard from it."""

    reals: Any
    registry: registrations.Gate
    snapshot: integrity.Snapshot
    extra_modules: tuple[types.ModuleType, ...]
    trusted_files: tuple[str, ...]
    # The checks made from the snapshots (integrity.watch): the whole one, the probes' part, and what frame
    # consumers call into (_consumed).
    intact: tuple[Callable[[], str | None], Callable[[], str | None], Callable[[], str | None]]


def prepare(extra_modules=(), trusted_files=()) -> Prepared:
    """The guard's work that needs no learner's file (most of its cost): a parked worker (judge.grading.parking)
    does it while it waits. Nothing but the judge's own code may run between this and `arm`: the snapshot is what
    every later check compares with."""
    frames.hide_judge_frames(frames.judge_roots(trusted_files))  # before the snapshot, which then watches it
    reals = torchgate.install()  # before the snapshots: the stand-ins are what they must find in place
    registry = registrations.install()  # likewise: the dispatcher's registration doors (judge.worker.registrations)
    snapshot = integrity.take(extra_modules)
    consumed = _consumed(snapshot)
    # What a probe looks up at call time (its module's globals, what they hold): checked again as each request
    # arrives; the whole snapshot is checked before each reply leaves.
    names = tuple(module.__name__ for module in extra_modules)
    probe_part = tuple(e for e in snapshot if e[0] in names or e[0].startswith(tuple(n + "." for n in names)))
    intact = (integrity.watch(snapshot), integrity.watch(probe_part), integrity.watch(consumed))
    return Prepared(reals, registry, snapshot, tuple(extra_modules), tuple(trusted_files), intact)


def arm(
    fd: int, max_frame: int, extra_modules=(), learner_names=(), trusted_files=(), sealed=(), prepared=None
) -> tuple[str, registrations.Gate]:
    """Guard channel `fd` for the calling frame, which must be the loop that sends and receives on it.

    `learner_names` are the file names the learner's code is compiled under; `trusted_files` are files
    outside the usual places whose code the judge trusts (the probes); `sealed` are descriptors this thread must
    not use at all (the stack's, which faulthandler's watchdog, started before, writes). `prepared`: what
    `prepare` took earlier for the same modules and files (else it is taken now). Returns the seccomp
    fence's status ('active' or why not), and the gate of the dispatcher's registrations (what the table check at
    the session's end compares with); the audit hook is always installed."""
    serve_frame = sys._getframe(1)
    fd = _relocate(fd)
    if prepared is None:
        prepared = prepare(extra_modules, trusted_files)
    reals, registry, snapshot = prepared.reals, prepared.registry, prepared.snapshot
    extra_modules, trusted_files = prepared.extra_modules, prepared.trusted_files
    trusted_globals = frozenset(id(entry[1]) for entry in snapshot)
    roots = frames.trusted_roots(trusted_files)
    classify = frames.make_classifier(roots, learner_names)
    whole, probes, consumed = prepared.intact
    modules = {entry[0]: (entry,) for entry in snapshot}  # a module's own bindings, by name (classes are "m.C")

    def consumers_intact(name, _first=integrity.first_change, _get=modules.get, _none=()) -> bool:
        return consumed() is None and _first(_get(name, _none)) is None

    allowed = frames.make_policy(classify, consumers_intact)
    gates = (reals, frames.make_stack_check(classify), registry)
    scratch = tuple(os.path.dirname(path) + os.sep for path in trusted_files)  # the probes' folder is the learner's
    policy = (allowed, classify)
    watched = _Watch(fd, max_frame, serve_frame, (whole, probes), trusted_globals, policy, roots, gates, scratch)
    hook = _make_hook(watched)
    sys.addaudithook(hook)
    for own in (fd, *sealed):
        _set_cloexec(own)
    return seccomp_filter.fence(fd, tuple(sealed)), registry


def _consumed(snapshot: integrity.Snapshot) -> integrity.Snapshot:
    """Snapshot entries of what frame consumers call into: taken from the main snapshot where it has them."""
    prefixes = tuple(name + "." for name in frames.CONSUMER_CLASSES)
    have = tuple(entry for entry in snapshot if entry[0] in frames.CONSUMER_MODULES or entry[0].startswith(prefixes))
    missing = frozenset(name for name in frames.CONSUMER_MODULES if not integrity.is_watched(name))
    return have + integrity.take(only=missing, classes_of=frames.CONSUMER_CLASSES)


def _relocate(fd: int) -> int:
    """Move the channel to the highest descriptor the rlimit allows, close-on-exec.

    The fence is inherited by child processes, which do not inherit the channel: in a child, the fenced
    number is just a number, and a compiler or shell that opened a file on it could not read it. At the
    top of the table no child gets there."""
    if resource is None:
        return fd
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = (soft if 0 < soft < 1 << 16 else 1 << 16) - 1
    if fd >= top:
        return fd
    moved = os.dup2(fd, top, inheritable=False)
    os.close(fd)
    return moved


def _set_cloexec(fd: int) -> None:
    os.set_inheritable(fd, False)  # a program the learner executes must not inherit the channel; fenced from now on


@dataclass(frozen=True)
class _Watch:
    """What the hook guards and checks against, made by arm() before the submission runs; the hook reads it into
    its own locals once, so nothing of it is looked up while the submission runs."""

    fd: int  # the channel
    max_frame: int
    serve_frame: Any  # the serve loop's frame: the one caller the channel's events are served for
    intact: tuple[Any, Any]  # the checks of the whole integrity snapshot and of the probes' part of it
    trusted_globals: frozenset[int]  # ids of the trusted modules' dicts (their functions' code stays theirs)
    policy: tuple[Any, Any]  # (allowed(frame) for frame requests, classify(frame))
    roots: tuple[str, ...]  # the trusted folders (judge.worker.frames.trusted_roots); the probes' is the scratch
    gates: tuple[Any, Any, Any]  # (torchgate's originals, no_learner(frame), the dispatcher registrations' gate)
    scratch: tuple[str, ...]  # the probes' folder, which is the learner's scratch: no trusted bytecode comes from it


def _make_hook(
    watch: _Watch,
    # Bound now: the learner may rebind the module-level and builtin names later.
    _type=type,
    _str=str,
    _len=len,
    _id=id,
    _getframe=sys._getframe,
    _ident=_thread.get_ident,
    _new_socket=_socket.socket,
    _gc_disable=gc.disable,
    _gc_enable=gc.enable,
    _gc_on=gc.isenabled,
    _function=types.FunctionType,
    _refuse=_refuse,
    _report=_report,
    _len_dispatch_modes=torch._C._len_torch_dispatch_stack,
    _len_function_modes=torch._C._len_torch_function_stack,
    _function_mode_at=torch._C._get_function_stack_at,
    _device_context=torch.utils._device.DeviceContext,
    _range=range,
    _sum=sum,
    _header=HEADER,
    _refused=REFUSED,
    _fields=FUNCTION_FIELDS,
    _send=SEND,
    _recv=RECV,
    _frame_event=FRAME_EVENT,
    _frame_attributes=frames.FRAME_ATTRIBUTES,
    _made_code=MADE_CODE,
    _learner=frames.LEARNER,
    _loaded_code=LOADED_CODE,
    _trusted_name=frames.is_trusted_name,
    _torch_event=torchgate.EVENT,
    _setters=torchgate.SETTERS,
    _list=list,
    _tuple=tuple,
    _int=int,
    _saveall=gc.DEBUG_SAVEALL,
    _test_modules=("_test", "_xx"),
    _what=torchgate.WHAT,
    _register_event=registrations.EVENT,
    _dict=dict,
    _note_event=compiled.NOTE,
    _note_code=compiled.NOTE_CODE,
    _backend_code=compiled.BACKEND_CODE,
    _encode=encode,
    _check_reply=check_reply,
):
    fd, max_frame, serve_frame, trusted_globals = watch.fd, watch.max_frame, watch.serve_frame, watch.trusted_globals
    (whole, probes), (allowed, classify), roots = watch.intact, watch.policy, watch.roots
    gated, no_learner, registry = watch.gates
    scratch = watch.scratch
    main = _ident()
    _what = _dict(_what)  # the hook's own copies of module-level tables, which learner code can reach
    _refused = _dict(_refused)  # a copy only the hook holds: the module's read-only mapping can be unwrapped
    busy = {}  # threads inside the hook's own frame lookups: the audit events those raise are the hook's own

    def requester():
        """The frame whose code raised the event being handled (hook -> this)."""
        me = _ident()
        busy[me] = True
        try:
            return _getframe(2)
        finally:
            del busy[me]

    def made_code_allowed(frame, named, name) -> bool:
        """Code under a trusted file name (compile, code.replace) not from learner code (trusted helpers
        that compile under the learner's stack, such as triton's interpreter, are let be); marshalled code
        (no name to read) from learner code never, and under learner code only from the judge's or the
        interpreter's own bytecode files (a .pyc the learner wrote could carry any name)."""
        if classify(frame)[0] == _learner:
            return named and not _trusted_name(name, roots)
        if named:
            return True
        if no_learner(frame):
            return True
        bytecode = frame.f_locals.get("bytecode_path")  # importlib._bootstrap_external._compile_bytecode's
        return _type(bytecode) is _str and bytecode.startswith(roots) and not bytecode.startswith(scratch)

    def judged(decide, *args):
        """decide(*args), with the audit events it raises itself passed through."""
        me = _ident()
        busy[me] = True
        try:
            return decide(*args)
        finally:
            del busy[me]

    def modes() -> tuple[Any, ...]:
        # torch.set_default_device leaves its own DeviceContext pushed: allowed, it only picks a device.
        function_modes = _len_function_modes()
        kept = _sum(1 for i in _range(function_modes) if _type(_function_mode_at(i)) is not _device_context)
        return _len_dispatch_modes(), kept

    before = modes()

    def tampered() -> str | None:
        where = whole()
        if where is None and modes() != before:
            where = "a torch dispatch or function mode left active"
        return where

    def open_socket():
        sock = _new_socket(fileno=fd)
        sock.settimeout(None)
        return sock

    def send(data: bytes) -> None:
        sock = open_socket()
        try:
            sent, total = 0, _len(data)
            while sent < total:
                sent += sock.sendmsg([data[sent:]])
        finally:
            sock.detach()

    def receive(size: int, sock) -> bytes | None:
        chunks, got = [], 0
        while got < size:
            chunk = sock.recvmsg(size - got if size - got < 1 << 20 else 1 << 20)[0]
            if not chunk:
                return None
            chunks.append(chunk)
            got += _len(chunk)
        return b"".join(chunks)

    def receive_frame() -> bytes | None:
        sock = open_socket()
        try:
            header = receive(_header.size, sock)
            if header is None:
                return None
            (size,) = _header.unpack(header)
            return receive(size, sock) if size <= max_frame else None
        finally:
            sock.detach()

    def with_gc_off(action, *args):
        """action(*args) with the collector off: no finalizer may run while a socket object exists."""
        was_on = _gc_on()
        _gc_disable()
        try:
            action(*args)
        finally:
            if was_on:
                _gc_enable()

    def serve(event, args, frame):
        """The serve loop's own send or receive (judge.worker.main); `frame` raised the event."""
        if frame is not serve_frame or _ident() != main:
            raise _refuse("using the judge's channel")
        if event == _send:
            where = tampered()
            if where is not None:
                _report(where)
            send(args[0] if where is None else args[1])
        else:  # the frame, and whether the trusted code is intact as the next probe starts
            args[0].append(receive_frame())
            where = probes()
            if where is not None:
                _report(where)
            args[0].append(where is None)

    def hook(event, args):
        if _type(event) is not _str or _ident() in busy:
            return
        if event == _frame_event or event == "object.__getattr__" and args[1] in _frame_attributes:
            if not judged(allowed, requester()):
                raise _refuse("reading frames (the judge's own code runs in them)")
        elif event in _made_code or event in _loaded_code:  # learner code may not pass for the judge's
            if not judged(
                made_code_allowed, requester(), event in _made_code, args[1] if event in _made_code else None
            ):
                raise _refuse("making code under the name of a file the judge trusts")
        elif event == "import" and _type(args[0]) is _str and args[0].startswith(_test_modules):
            raise _refuse("importing CPython's test modules (C helpers that bypass these checks)")
        elif event == _torch_event:
            name, call_args, box = args
            real = (
                gated.get(name) if _type(name) is _str and _type(call_args) is _tuple and _type(box) is _list else None
            )
            if real is None:
                raise _refuse("hooking torch's frame evaluation")
            turns_off = (
                name in _setters
                and _len(call_args) == 1
                and (call_args[0] is None or call_args[0] is False)
                or name == "set_debug"
                and _len(call_args) == 1
                and _type(call_args[0]) is _int
                and not call_args[0] & _saveall
            )
            if not turns_off and not judged(no_learner, requester()):
                raise _refuse(_what.get(name, "hooking torch's frame evaluation (torch.compile from learner code)"))
            box.append(real(*call_args))
        elif event == _note_event:  # a graph the judge's backend compiles (judge.worker.compiled): to the checker now
            frame = requester()
            backend = frame.f_back
            dynamo = backend.f_back if backend is not None else None
            if not (frame.f_code is _note_code and backend.f_code is _backend_code and dynamo is not None
                    and _trusted_name(dynamo.f_code.co_filename, roots) and _type(args[0]) is _dict
                    and judged(no_learner, frame)):  # fmt: skip
                raise _refuse("reporting compiled graphs")
            with_gc_off(send, _encode(_check_reply({"note": args[0]})))
        elif event == _register_event:  # a kernel registration (judge.worker.registrations)
            name, target, call_args, call_kwargs, box = args
            known = registry.originals.get(name) if _type(name) is _str else None
            if not (known is not None and _type(call_args) is _tuple and _type(call_kwargs) is _dict
                    and _type(box) is _list):  # fmt: skip
                raise _refuse("registering kernels with the dispatcher")
            learner = not judged(no_learner, requester())
            why = "passing a registration's arguments by keyword" if learner and call_kwargs else None
            why = why or judged(registry.refusal, name, target, call_args, learner)
            if why is not None:
                raise _refuse(f"{why}: a submission registers kernels only for operators of a namespace of its own")
            box.append(registry.call(name, target, call_args, call_kwargs))
        elif event == _send or event == _recv:
            with_gc_off(serve, event, args, requester())
        elif event == "socket.__new__" or event == "socket.sendmsg":
            if requester().f_code is not (window_code if event == "socket.__new__" else send_code):
                raise _refuse(_refused[event])
        elif event in _refused or event.startswith("ctypes."):
            raise _refuse(_refused.get(event, "ctypes"))
        elif event == "object.__setattr__" or event == "object.__delattr__":  # `f.__defaults__ = None` deletes
            target, name = args[0], args[1]
            if (
                _type(target) is _function
                and _type(name) is _str
                and name in _fields
                and _id(target.__globals__) in trusted_globals
            ):
                raise _refuse(f"changing {name} of the judge's own functions")

    window_code = open_socket.__code__  # the one place a socket object on the channel may be made
    send_code = send.__code__  # the one place anything is sent with sendmsg (descriptors ride on it)
    return hook
