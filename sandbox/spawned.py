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


def launch(start: child.Start) -> subprocess.Popen:
    """In the zygote: start the job's interpreter (argv list, never a shell), in its own session; its stdout and
    stderr go to start.out_fd."""
    bundle = {
        "spec": start.spec.to_wire(),
        "fds": list(start.fds),
        "plan": start.plan,
        "group": _group_to_wire(start.group),
        "report_fd": start.report_fd,
        "started": start.started,
        "zygote_pid": start.zygote_pid,
        "preload": list(start.preload),
        "host": host.to_wire(host.current()),
    }
    with tempfile.TemporaryFile() as fh:  # unlinked already; no size limit, unlike a pipe the zygote would block on
        fh.write(json.dumps(bundle).encode())
        fh.flush()
        fh.seek(0)
        argv = [sys.executable, "-m", "sandbox.spawned", "--bundle-fd", str(fh.fileno())]
        return subprocess.Popen(
            argv,
            pass_fds=[*start.fds, start.report_fd, fh.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=start.out_fd,
            stderr=start.out_fd,
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
        child.Start(
            spec=JobSpec.from_wire(bundle["spec"]),
            fds=bundle["fds"],
            out_fd=None,
            plan=plan,
            group=_group_from_wire(bundle["group"]),
            report_fd=bundle["report_fd"],
            started=bundle["started"],
            zygote_pid=bundle["zygote_pid"],
            preload=bundle["preload"],
        )
    )


if __name__ == "__main__":
    main()
