"""The GPU canary: a tiny sandboxed job that initialises CUDA, allocates, and compiles and launches a Triton kernel.

It draws the line between the host's faults and the learner's: a GPU runner whose canary fails is unavailable
(its problems' GPU tier is still to be judged), and a failure on the GPU pass after which the canary fails is
the host's internal_error, never the learner's runtime_error. `check(runner)` runs it now; `status(runner)`
answers from the last run (a failed one is run again after RECHECK_S). The scale-out workers call `check`.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import weakref
from dataclasses import dataclass, field

from judge.runners.base import GPU_MEMORY_ENV, Runner, WorkerLaunch

TARGET = "judge.runners.canary:job"
TIMEOUT_S = 120.0  # CUDA's first initialisation and Triton's first build of cuda_utils take tens of seconds
RECHECK_S = 60.0  # a runner that failed its canary is tried again after this long, not on every judgement
MARK = "CANARY "
CANARY_SIZE = 1000


@dataclass(frozen=True)
class CanaryResult:
    ready: bool
    why: str  # "ready (device name)" or what failed, naming the host problem
    layers: dict[str, str] = field(default_factory=dict)  # the canary job's isolation layers, as the runner's jobs get
    seconds: float = 0.0

    def active_layers(self) -> list[str]:
        return [name for name, state in self.layers.items() if state.startswith("active")]


def check(runner: Runner, timeout_s: float = TIMEOUT_S) -> CanaryResult:
    """Run the canary on the runner now (a job of its own, through the runner's usual start)."""
    started = time.monotonic()
    ours, theirs = socket.socketpair()
    try:
        run = runner.start(
            WorkerLaunch(
                source="",
                probes_path=None,
                display_name="canary.py",
                wall_s=timeout_s,
                memory_bytes=8 << 30,
                output_bytes=64 << 10,
                target=TARGET,
            ),
            theirs.fileno(),
        )
    except Exception as exc:  # noqa: BLE001 - a runner that cannot start a job is not ready, and says why
        result = CanaryResult(False, f"the runner could not start a job: {type(exc).__name__}: {exc}")
        return _remember(runner, result)
    finally:
        theirs.close()
    try:
        facts = run.wait(timeout_s + 30)
        if facts is None:
            run.kill()
            result = CanaryResult(False, f"the canary did not finish within {timeout_s:.0f}s (a hung GPU or driver?)")
            return _remember(runner, result)
    except Exception as exc:  # noqa: BLE001
        return _remember(runner, CanaryResult(False, f"the runner lost the canary: {type(exc).__name__}: {exc}"))
    finally:
        run.close()
        ours.close()
    seconds = round(time.monotonic() - started, 2)
    for line in reversed(facts.output_tail.splitlines()):
        if line.startswith(MARK):
            seen = json.loads(line[len(MARK) :])
            return _remember(runner, CanaryResult(bool(seen["ok"]), str(seen["why"]), dict(facts.layers), seconds))
    how = facts.sandbox_error or f"exit {facts.exit_code}, signal {facts.signal}: {facts.output_tail[-300:]}"
    return _remember(runner, CanaryResult(False, f"the canary job ended without a result ({how})", facts.layers))


_results: weakref.WeakKeyDictionary[object, tuple[float, CanaryResult]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _remember(runner: Runner, result: CanaryResult) -> CanaryResult:
    with _lock:
        _results[runner] = (time.monotonic(), result)
    return result


def status(runner: Runner) -> CanaryResult:
    """The runner's last canary, run first if there is none (or the last failed more than RECHECK_S ago)."""
    with _lock:
        seen = _results.get(runner)
    if seen is not None and (seen[1].ready or time.monotonic() - seen[0] < RECHECK_S):
        return seen[1]
    return check(runner)


def forget(runner: Runner) -> None:
    with _lock:
        _results.pop(runner, None)


def job(fds: list[int], payload: dict[str, str]) -> None:
    """The sandboxed body (trusted code, run as a worker would be): one JSON line on stdout."""
    for fd in fds:
        os.close(fd)
    ok, why = probe()
    print(MARK + json.dumps({"ok": ok, "why": why}), flush=True)


def probe() -> tuple[bool, str]:
    """Each step as a learner's GPU code would meet it; the first that fails names the host problem."""
    import torch  # noqa: PLC0415 - in the job only: the zygote must not touch CUDA

    if torch.cuda.is_initialized():
        return False, "CUDA was initialised in the zygote before the fork: a forked worker cannot use it"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "(unset)")
    if not torch.cuda.is_available():
        return False, (
            f"no CUDA device visible to the worker (CUDA_VISIBLE_DEVICES={visible}; torch {torch.__version__} "
            f"built for CUDA {torch.version.cuda or 'none'}; device nodes: {_device_nodes()})"
        )
    step = "CUDA initialisation"
    try:
        torch.cuda.init()
        name = torch.cuda.get_device_name(0)
        step = "the device-memory budget"
        fraction = os.environ.get(GPU_MEMORY_ENV)
        if fraction:
            torch.cuda.set_per_process_memory_fraction(float(fraction))
        step = "a device allocation"
        x = torch.zeros(CANARY_SIZE, device="cuda")
        step = "compiling and launching a Triton kernel"
        from judge.runners import canary_kernel  # noqa: PLC0415 - imports triton

        canary_kernel.add_one[(1,)](x, CANARY_SIZE, BLOCK=1024)
        torch.cuda.synchronize()
        step = "checking the kernel's result"
        if int(x.sum().item()) != CANARY_SIZE:
            return False, f"the Triton kernel ran but computed a wrong result on {name}"
    except Exception as exc:  # noqa: BLE001 - any failure is the answer
        return False, f"{step} failed (CUDA_VISIBLE_DEVICES={visible}): {type(exc).__name__}: {str(exc)[:400]}"
    return True, f"ready ({name}, CUDA_VISIBLE_DEVICES={visible})"


def _device_nodes() -> str:
    try:
        found = sorted(name for name in os.listdir("/dev") if name.startswith("nvidia"))
    except OSError:
        return "unreadable"
    return ", ".join(found) or "none"
