"""The body of every job's process, forked from a warm zygote or spawned as a fresh interpreter (sandbox.spawned).

Both paths run `run` below: stdio, the target imported while still trusted, the isolation layers,
the job's environment, then the target. It never returns.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

from sandbox import layers, syscalls
from sandbox.base import EXIT_MEMORY, JobSpec
from sandbox.cgroups import JobGroup


def job_env(spec: JobSpec, scratch: str | None, planned: dict[str, str]) -> None:
    """cwd, home, temporary files and every cache torch.compile writes, inside the job's scratch folder."""
    if scratch:
        os.chdir(scratch)
        cache = os.path.join(scratch, ".cache")
        os.environ.update(
            HOME=scratch,
            TMPDIR=scratch,
            XDG_CACHE_HOME=cache,
            TORCH_HOME=os.path.join(cache, "torch"),
            TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "torchinductor"),
            TRITON_CACHE_DIR=os.path.join(cache, "triton"),
        )
        tempfile.tempdir = None  # the zygote may have cached its own temporary folder
    if planned.get("uid") == "active":
        os.environ.update(USER="sandbox", LOGNAME="sandbox")  # getpass.getuser() needs no passwd entry
    os.environ.update(spec.env)


def _redirect(out_fd: int) -> None:
    """stdin from /dev/null, stdout and stderr to the job's output pipe (a spawned child has them already)."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.close(out_fd)


@dataclass(frozen=True)
class Start:
    """What a job's process starts from, handed by its zygote (by fork, or through sandbox.spawned's bundle)."""

    spec: JobSpec
    fds: list[int]  # the job's descriptors, passed to its target (the stack's last, where spec.stack asks for it)
    out_fd: int | None  # where stdout and stderr go (None: a spawned child has them already)
    plan: dict[str, str]  # the layers planned for it (sandbox.layers.plan)
    group: JobGroup | None  # its cgroup
    report_fd: int  # the layer report's pipe to the zygote
    started: float  # time.monotonic() when the zygote began the job
    zygote_pid: int  # the parent a job dies with
    preload: Sequence[str] = field(default_factory=tuple)  # modules to import first (spawn mode only)


def run(start: Start) -> None:
    """Body of a job's process; never returns."""
    spec, fds, plan, group = start.spec, start.fds, start.plan, start.group
    code = 1
    try:
        if syscalls.LINUX:  # a job never outlives its zygote; elsewhere the zygote kills jobs when it ends
            syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != start.zygote_pid:
            os._exit(code)
        if start.out_fd is not None:
            _redirect(start.out_fd)
        for name in start.preload:
            importlib.import_module(name)
        module, func = spec.target.split(":")
        target = getattr(importlib.import_module(module), func)  # trusted code: imported before isolation
        report = layers.LayerReport(start.report_fd, spec, plan)
        scratch = layers.enter(spec, plan, group, fds, report)
        report.send(setup_s=round(time.monotonic() - start.started, 4))
        job_env(spec, scratch, plan)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(spec.threads)
        target(fds, spec.payload)
        code = 0
    except MemoryError:
        code = EXIT_MEMORY
    except BaseException:  # noqa: BLE001 - the child reports whatever stopped it, then exits
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)
