"""Spawn mode: a job in a fresh interpreter instead of a fork of the warm zygote (macOS, or zygotes=False).

The zygote calls `launch`; the new process runs `python -m sandbox.spawned --bundle-fd N`, reads what the
zygote knows (spec, planned layers, cgroup, probed host) from that fd, imports the zygote's preload list
and the target cold, then runs the same child body as a fork (sandbox.child). Slower, same contract.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from sandbox import child, host, layers
from sandbox.base import JobSpec
from sandbox.cgroups import JobGroup


def launch(
    spec: JobSpec,
    fds: list[int],
    out_fd: int,
    plan: dict[str, str],
    group: JobGroup | None,
    report_fd: int,
    started: float,
    preload: list[str],
) -> subprocess.Popen:
    """In the zygote: start the job's interpreter (argv list, never a shell), in its own session."""
    bundle = {
        "spec": spec.to_wire(),
        "fds": list(fds),
        "plan": plan,
        "group": _group_to_wire(group),
        "report_fd": report_fd,
        "started": started,
        "zygote_pid": os.getpid(),
        "preload": list(preload),
        "host": host.to_wire(host.current()),
    }
    with tempfile.TemporaryFile() as fh:  # unlinked already; no size limit, unlike a pipe the zygote would block on
        fh.write(json.dumps(bundle).encode())
        fh.flush()
        fh.seek(0)
        argv = [sys.executable, "-m", "sandbox.spawned", "--bundle-fd", str(fh.fileno())]
        return subprocess.Popen(
            argv,
            pass_fds=[*fds, report_fd, fh.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=out_fd,
            stderr=out_fd,
            start_new_session=True,
        )


def _group_to_wire(group: JobGroup | None) -> dict | None:
    if group is None:
        return None
    if isinstance(group, layers.FailedGroup):
        return {"failed": [group.error.errno, str(group.error)]}
    return {"dirs": group.dirs, "by_controller": group.by_controller, "kill_dir": group.kill_dir}


def _group_from_wire(data: dict | None) -> JobGroup | None:
    if data is None:
        return None
    if "failed" in data:
        return layers.FailedGroup(OSError(*data["failed"]))
    by_controller = {name: tuple(where) for name, where in data["by_controller"].items()}
    return JobGroup(data["dirs"], by_controller, data["kill_dir"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle-fd", type=int, required=True)
    args = parser.parse_args()
    with os.fdopen(args.bundle_fd, "rb") as fh:
        bundle = json.loads(fh.read())
    plan = bundle["plan"]
    host.adopt(bundle["host"], seccomp=plan.get("seccomp") == "active")  # no second probe
    child.run(
        JobSpec.from_wire(bundle["spec"]),
        bundle["fds"],
        None,
        plan,
        _group_from_wire(bundle["group"]),
        bundle["report_fd"],
        bundle["started"],
        bundle["zygote_pid"],
        bundle["preload"],
    )


if __name__ == "__main__":
    main()
