"""A Try's checkers (forked from the checker zygote), one per worker, as the op trace's are (judge.checker.tracing):
`build` asks the input builder's worker for the values the learner's input made; `observe` calls the operator's
probe on them in one worker (the reference's, then the learner's) and traces the call; given the reference's output,
it compares the two here, in the trusted checker, never in a worker (judge.grading.trying)."""

from __future__ import annotations

import base64
import socket
from typing import Any

import torch

from judge.checker.errors import LearnerError, WorkerLost
from judge.checker.messages import error_text, import_failure, where
from judge.checker.remote import Remote
from judge.report.catalog import say
from judge.report.feedback import compare
from judge.report.optrace import OpTrace, Trace
from judge.report.trying import MAX_SHOWN, Built, Compared, Difference, Failed, Observed, TryEvent, Value
from judge.wire.channel import HEADER, Channel, ChannelClosed, decode, encode

MAX_INPUT_FRAME = 512 << 10  # the built input crosses to two more workers: exercise-sized tensors only
EXACT = (0.0, 0.0)  # integer and bool outputs: equal or not


class Events:
    """The Try's events, one JSON line each, to the judge (judge.report.trying.TRY_EVENT reads them)."""

    def __init__(self, fd: int):
        self.sock = socket.socket(fileno=fd)

    def send(self, event: TryEvent) -> None:
        self.sock.sendall(event.model_dump_json().encode("utf-8", "replace") + b"\n")


def _frame(value: Any) -> str:
    return base64.b64encode(encode(value)).decode("ascii")


def _unframe(text: str) -> Any:
    return decode(base64.b64decode(text)[HEADER.size :])


def show(value: Any) -> str:
    """A value as text: a tensor by torch's own printing (summarised past its threshold), with shape and dtype."""
    if isinstance(value, torch.Tensor):
        with _printing():
            body = str(value)
        return f"{body}\nshape {list(value.shape)}, {str(value.dtype).removeprefix('torch.')}"[:MAX_SHOWN]
    return repr(value)[:MAX_SHOWN]


def _printing() -> Any:
    return torch._tensor_str.printoptions(precision=4, threshold=120, edgeitems=3, linewidth=76, sci_mode=None)


def values(obs: Any) -> list[Value]:
    """An observation (a probe's dict, or one value) as named values."""
    items = obs.items() if isinstance(obs, dict) else [("out", obs)]
    return [Value(name=str(k)[:200], text=show(v)) for k, v in items]


def build(fds: list[int], payload: dict[str, Any]) -> None:
    """The builder's worker imported the learner's input as a module: ask it for the arguments, in order."""
    remote = Remote(Channel(socket.socket(fileno=fds[0])), deadline=float(payload["deadline"]))
    events = Events(fds[1])
    names: list[str] = list(payload["args"])
    owners = {int(k): v for k, v in dict(payload["owners"]).items()}
    hello = remote.handshake()
    if hello["import"] != "ok":
        events.send(_input_failed(remote, owners))
        return
    try:
        built = remote.call("inputs")
        args = [built[name] for name in names]
        frame = encode({"args": args, "kwargs": {}})
    except (LearnerError, WorkerLost, KeyError, TypeError) as exc:
        events.send(Failed(message=say("try.not_built", why=_why(exc))))
        return
    except ValueError:  # over the channel's cap
        events.send(Failed(message=say("try.too_large", limit=MAX_INPUT_FRAME >> 10)))
        return
    if len(frame) > MAX_INPUT_FRAME:
        events.send(Failed(message=say("try.too_large", limit=MAX_INPUT_FRAME >> 10)))
        return
    events.send(Built(frame=base64.b64encode(frame).decode("ascii"), values=values(dict(zip(names, args)))))
    remote.channel.close()


def _input_failed(remote: Remote, owners: dict[int, str]) -> Failed:
    error = remote.import_error
    if error is None:
        return Failed(message=say("try.not_built", why=remote.lost or "?"))
    line = error.get("learner_line")
    owner = owners.get(line) if line else None
    why = error_text(str(error.get("type")), str(error.get("message")))
    return Failed(message=say("try.arg_raised", name=owner or "?", error=why))


def _why(exc: BaseException) -> str:
    if isinstance(exc, LearnerError):
        return f"{exc.type_name}: {exc.message}"[:300]
    if isinstance(exc, KeyError):
        return f"no value for {exc}"
    return str(exc)[:300]


def observe(fds: list[int], payload: dict[str, Any]) -> None:
    """Call the probe on the built input in this worker, then trace the same call; with the reference's output in
    the payload, compare (the learner's pass)."""
    remote = Remote(Channel(socket.socket(fileno=fds[0])), deadline=float(payload["deadline"]))
    events = Events(fds[1])
    display = str(payload["display_name"])
    hello = remote.handshake()
    if hello["import"] != "ok":
        failed = remote.import_error
        message = import_failure(failed, display) if failed is not None else say("try.not_started")
        events.send(Failed(message=message, line=failed.get("learner_line") if failed else None))
        return
    call = _unframe(str(payload["frame"]))
    args, kwargs, probe = list(call["args"]), dict(call["kwargs"]), str(payload["probe"])
    try:
        obs = remote.call(probe, *args, **kwargs)
    except LearnerError as exc:
        error = error_text(exc.type_name, exc.message)
        if payload.get("role") == "reference":  # what went wrong, never where in the reference (it is not shown)
            events.send(Observed(raised=error))
            return
        raised = say("try.raised", error=error, where=where(display, exc.learner_line))
        events.send(Observed(raised=raised, line=exc.learner_line, trace=remote.trace(probe, args, kwargs)))
        return
    except (WorkerLost, ChannelClosed):
        return  # a limit or a crash: the judge reads it from the worker's facts
    trace = remote.trace(probe, args, kwargs)
    events.send(Observed(frame=_frame(obs), values=values(obs), trace=trace))
    reference = payload.get("reference")
    if reference:
        theirs = _unframe(str(reference["frame"]))
        tolerances = {k: (float(v[0]), float(v[1])) for k, v in dict(payload["tolerances"]).items()}
        their_trace = Trace.model_validate(reference["trace"]) if reference.get("trace") else None
        events.send(
            Compared(
                differences=differences(obs, theirs, tolerances),
                op_trace=OpTrace.compare(probe, trace, their_trace) if trace and their_trace else None,
            )
        )
    remote.channel.close()


def differences(yours: Any, theirs: Any, tolerances: dict[str, tuple[float, float]]) -> list[Difference]:
    """Each key of the two outputs, the same or not: tensors within the problem's tolerance for their dtype
    (exactly for integers and bools), anything else equal."""
    mine = yours if isinstance(yours, dict) else {"out": yours}
    ref = theirs if isinstance(theirs, dict) else {"out": theirs}
    found = []
    for name in [*ref, *(k for k in mine if k not in ref)]:
        if name not in mine or name not in ref:
            found.append(Difference(name=str(name), same=False, message=say("try.only_one", side=_side(name in ref))))
            continue
        found.append(_difference(str(name), mine[name], ref[name], tolerances))
    return found


def _side(in_reference: bool) -> Any:
    return say("optrace.reference") if in_reference else say("optrace.yours")


def _difference(name: str, a: Any, b: Any, tolerances: dict[str, tuple[float, float]]) -> Difference:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        dtype = str(b.dtype).removeprefix("torch.")
        exact = not (b.is_floating_point() or b.is_complex())
        rtol, atol = EXACT if exact else tolerances.get(dtype, tolerances.get("float32", (1e-4, 1e-5)))
        wrong = compare(a, b, rtol=rtol, atol=atol, dtype=b.dtype)
        diff = ""
        if wrong is not None and a.shape == b.shape and not exact and a.numel():
            diff = show(a.detach().to(torch.float64) - b.detach().to(torch.float64))
        said = wrong or (say("try.equal") if exact else say("try.within", rtol=rtol, atol=atol))
        return Difference(name=name, same=wrong is None, message=said, diff=diff)
    try:
        same = type(a) is type(b) and bool(a == b)
    except (RuntimeError, TypeError, ValueError):  # containers of tensors: equal when they print the same
        same = type(a) is type(b) and show(a) == show(b)
    if not same and isinstance(a, dict) and isinstance(b, dict):  # only the entries that differ
        keys = [k for k in {**b, **a} if k not in a or k not in b or show(a[k]) != show(b[k])]
        a, b = {k: a.get(k) for k in keys}, {k: b.get(k) for k in keys}
    message = say("try.equal") if same else say("try.unequal", yours=repr(a)[:300], theirs=repr(b)[:300])
    return Difference(name=name, same=bool(same), message=message)
