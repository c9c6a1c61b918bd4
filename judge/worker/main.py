"""Worker entry point: load probes, arm the guard, import the submission, serve probe calls until the checker ends."""

from __future__ import annotations

import faulthandler
import gc
import os
import socket
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from judge.wire.channel import MAX_FRAME, ChannelClosed, decode, encode
from judge.wire.jobs import WorkerPayload, read_work
from judge.wire.replies import ReplyRejected, check_reply
from judge.worker import guard, registrations
from judge.worker.learner import describe, is_out_of_memory, load_module
from judge.worker.optrace import traced
from sandbox.base import EXIT_MEMORY, EXIT_TAMPERED

if TYPE_CHECKING:  # the protocol's names, for the type checker only: the worker imports nothing more for them
    from judge.wire.protocol import Handshake, ImportRaised, ProbeRequest, Reply, TamperedReply

TAMPERED: TamperedReply = {"tampered": True}


def serve(
    fds: list[int],
    payload: dict[str, Any],
    _audit=sys.audit,
    _exit=os._exit,
    _gc_disable=gc.disable,
    _gc_enable=gc.enable,
    _gc_collect=gc.collect,
    _gc_freeze=gc.freeze,
    _decode=decode,
    _closed=ChannelClosed,
    _send=guard.SEND,
    _recv=guard.RECV,
    _checker=registrations.checker,
    _write=os.write,
) -> None:
    """The only frame that may send or receive on the channel (see judge.worker.guard): it does both inline.

    Everything it calls is bound before the submission runs. No code of the learner's may run between the
    guard's check of a reply and the start of the next probe (a finalizer there could swap a probe's helper
    and put it back before the next check). So, before each check, the loop drops everything of a probe's it
    holds (the request, the reply; a finalizer or weakref callback on them runs now), collects the young
    generations (their finalizers run now too) and freezes the heap (gc.freeze: a cycle still left is never
    collected, so its finalizer never runs; a full collection costs half a second with torch loaded), and the
    collector stays off until the next probe is called. The guard also checks the probes' module (what a
    probe looks up at call time) when a request arrives, before the probe starts."""
    call, reply_frame = _call, _reply_frame
    job = WorkerPayload.from_wire(payload)
    display, (solution_path, probes_path) = job.display_name, job.paths()
    # Probes load first, so the names they bind are torch's own, not ones the submission patched; the
    # table of probe functions is taken before the submission runs, read-only, and kept out of sys.modules.
    probes_module = load_module("probes", probes_path)
    # No mutable container: a read-only mapping can be unwrapped (`proxy == X()` hands X.__eq__ its dict).
    probes = tuple(probe_table(probes_module).items())
    sys.modules.pop("probes", None)
    tampered = encode(TAMPERED)
    prepared = None
    if job.parked:  # started ahead of its work (judge.grading.parking): the guard's costly part now, then the file
        prepared = guard.prepare((probes_module,), (probes_path,))
        work = _await_work(fds[0], solution_path)
        if work is None:
            return  # the judge let the parked pair go unused
        display = work
    _gpu_budget()  # before the guard and the learner's import: torch's CUDA calls are the judge's own here
    stack = fds[1:2]  # the stack's descriptor (sandbox JobSpec.stack), if the runner asked for one
    # Armed before the guard's fence: faulthandler's watchdog thread exists before the filter that keeps every later
    # thread, and the learner's code with it, from writing there.
    _stack_before_the_limit(job.stack_after_s, stack[0] if stack else None)
    fence, gate = guard.arm(
        fds[0],
        MAX_FRAME,
        extra_modules=(probes_module,),
        learner_names=(display,),
        trusted_files=(probes_path,),
        sealed=tuple(stack),
        prepared=prepared,
    )
    del probes_module, prepared
    _intact = _checker(gate)  # the dispatcher table's settled state, held here before the submission runs
    try:
        solution = load_module("solution", solution_path, display)
        failure: ImportRaised | None = None
    except Exception as exc:  # noqa: BLE001 - any failure while importing is the learner's compile error
        if is_out_of_memory(exc):
            _exit(EXIT_MEMORY)
        failure = {"import": "error", **describe(exc, display)}
    _gc_disable()
    _gc_collect(1)  # what the import left for the collector is finalized now, before the check, or never
    _gc_freeze()
    changed = _intact(False)  # operators the import defined in torch's namespaces, by any route
    hello = tampered if changed else reply_frame(failure or {"import": "ok", "fence": fence})
    _audit(_send, hello, tampered)
    while failure is None and not changed:
        box: list[Any] = []
        _audit(_recv, box)  # [frame or None, whether the snapshot was intact when it arrived]
        if box[0] is None:
            break
        if not box[1]:
            _audit(_send, tampered, tampered)
            continue
        try:
            request = _decode(box[0])
        except _closed:
            break
        del box
        _gc_enable()
        reply = call(probes, solution, request, display)
        _gc_disable()
        out_of_memory = "memory" in reply  # our own dict: where an allocation the limit refused was asked for
        frame = reply_frame(reply)
        del request, reply  # anything of the learner's they hold dies now, before the check below
        _gc_collect(1)  # and cycles: their finalizers run now, before the check, or never (frozen)
        _gc_freeze()
        _audit(_send, frame, tampered)
        del frame
        if out_of_memory:
            _exit(EXIT_MEMORY)  # the sandbox reads this exit as the memory limit (sandbox.zygote)
    # The session is over (the checker closed the channel): the dispatcher's table must be as the zygote left it,
    # or nothing the checker saw is believed (the judge reads this exit code; judge.grading.decide).
    changed = changed or _intact(job.full_table_check)
    if changed:
        _write(2, f"judge: the submission changed the dispatcher's table ({changed}); no result is believed\n".encode())
        _exit(EXIT_TAMPERED)


def _await_work(fd: int, solution_path: str) -> str | None:
    """A parked worker's work, from its checker (the judge's own code): the learner's file, written where the worker
    imports it from, and its display name; None when the channel closes first. No code of the learner's exists yet,
    and the guard's snapshot is taken: this reads plain JSON (judge.wire.jobs.read_work), never torch's decoder."""
    sock = socket.socket(fileno=os.dup(fd))
    try:
        work = read_work(sock)
    except (EOFError, OSError, ValueError):
        return None
    finally:
        sock.close()
    if type(work) is not dict or type(work.get("source")) is not str or type(work.get("display_name")) is not str:
        return None
    with open(solution_path, "w", encoding="utf-8") as file:
        file.write(work["source"])
    return work["display_name"]


def _stack_before_the_limit(after_s: float, fd: int | None) -> None:
    """Just before the time limit, faulthandler's watchdog thread (C, no GIL needed) writes every thread's Python
    stack to the job's stack descriptor, which the sandbox reads when the worker ends (JobFacts.stack), so the judge
    can name the learner's line that was running (judge.grading.stuck). Armed before the learner's file is
    imported, so an endless loop at its top level is named too. Only the watchdog writes there: the guard's fence
    seals the descriptor from every thread started after it. The learner's code can cancel the dump (then no line
    is named), never write one of its own. Without a stack descriptor (a runner that asks for none), stderr."""
    if after_s > 0:
        faulthandler.dump_traceback_later(after_s, exit=False, file=fd if fd is not None else 2)


def _gpu_budget() -> None:
    """A GPU job's device-memory budget (judge.runners.base.GPU_MEMORY_ENV): the share of its GPU torch may hold."""
    fraction = os.environ.get("PRACTICE_GPU_MEMORY_FRACTION")
    torch = sys.modules.get("torch")
    if fraction and torch is not None and torch.cuda.is_available():
        torch.cuda.set_per_process_memory_fraction(float(fraction))


def _reply_frame(
    reply: Reply | Handshake, _encode=encode, _check=check_reply, _rejected=(ReplyRejected, ValueError)
) -> bytes:
    """The reply, checked to be plain data (so serialising it runs no code of the learner's) and encoded.

    Names are bound at definition, like serve's: the learner's code runs just before this."""
    try:
        return _encode(_check(reply))
    except _rejected as exc:
        return _encode(
            {
                "raised": {
                    "type": "ReplyError",
                    "learner_line": None,
                    "message": f"the result could not be sent back: {exc}"[:500],
                }
            }
        )


def probe_table(module: ModuleType) -> dict[str, Callable[..., Any]]:
    """Public functions defined in the probes module, captured once."""
    return {
        name: fn
        for name, fn in vars(module).items()
        if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", None) == module.__name__
    }


def _call(
    probes: tuple[tuple[str, Callable[..., Any]], ...],
    solution: ModuleType,
    request: ProbeRequest,
    display: str,
    _describe=describe,
    _out_of_memory=is_out_of_memory,
    _type=type,
    _str=str,
    _traced=traced,
) -> Reply:
    wanted = request["probe"]
    probe = None
    if _type(wanted) is _str:
        for name, function in probes:
            if name == wanted:
                probe = function
    if probe is None:
        return {"internal": f"no probe named {wanted!r}"}
    if request.get("trace") is True:  # the op trace of a failing public case (judge.worker.optrace): feedback only
        args, kwargs = request["args"], request["kwargs"]
        return {"trace": _traced(lambda: probe(solution, *args, **kwargs))}
    try:
        return {"ok": probe(solution, *request["args"], **request["kwargs"])}
    except Exception as exc:  # noqa: BLE001 - the learner's exception is an observation, not a crash
        if _out_of_memory(exc):
            # Where the refused allocation was asked for, as a time limit names its line (judge.grading.stuck);
            # the serve loop sends it, then ends the worker with the memory limit's exit.
            return {"memory": _describe(exc, display)}
        return {"raised": _describe(exc, display)}
