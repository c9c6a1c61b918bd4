"""Trusted diagnostic jobs that look at the walls between GPU jobs (bench/gpu_check.sh, tests/docker).

Each runs as a worker would (through a runner's start, target=...) and prints one JSON line after MARK.
They live in judge/ because a runner's container holds judge/ and sandbox/ only.
"""

from __future__ import annotations

import json
import os
import signal

MARK = "WALLS "
PATTERN = 0x5EED1E57  # what leave_pattern writes into device memory and find_pattern looks for
SIZE = 64 << 20  # bytes of device memory each of the two jobs touches


def _say(seen: dict[str, object]) -> None:
    print(MARK + json.dumps(seen), flush=True)


def look(fds: list[int], payload: dict[str, str]) -> None:
    """Who the job is and what it can reach: its uid, its pid namespace, the zygote, leftovers of other jobs."""
    for fd in fds:
        os.close(fd)
    seen: dict[str, object] = {"uid": os.getuid(), "pid": os.getpid(), "ppid": os.getppid()}
    for target in (1, int(payload.get("zygote_pid", "0") or 0)):
        if target <= 0:
            continue
        try:
            os.kill(target, 0)
            seen[f"signal_{target}"] = "allowed"
        except OSError as exc:
            seen[f"signal_{target}"] = type(exc).__name__
    seen["sleepers"] = _count("sleep\x00600")  # an escaped child of an earlier job, still alive?
    seen["tmp"] = _listing("/tmp")  # a job under Landlock may not even list it
    seen["shm"] = _listing("/dev/shm")
    try:
        with open("/proc/sysvipc/shm") as fh:
            seen["sysv_shm"] = max(0, len(fh.read().splitlines()) - 1)
    except OSError:
        seen["sysv_shm"] = "unreadable"
    if payload.get("leave"):
        for folder in ("/tmp", "/dev/shm"):
            try:
                with open(os.path.join(folder, "left-by-a-job"), "w") as fh:
                    fh.write("x")
            except OSError as exc:
                seen[f"leave_{folder}"] = type(exc).__name__
        if os.fork() == 0:  # an escaped child: a session of its own, a long sleep
            os.setsid()
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
            os.execvp("sleep", ["sleep", "600"])
    _say(seen)


def _listing(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))[:20]
    except OSError as exc:
        return [f"({type(exc).__name__})"]


def _count(cmdline: str) -> int:
    found = 0
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline") as fh:
                found += fh.read().startswith(cmdline)
        except OSError:
            continue
    return found


def leave_pattern(fds: list[int], payload: dict[str, str]) -> None:
    """Fill device memory with PATTERN and exit without freeing it (the driver frees it with the context)."""
    import torch  # noqa: PLC0415

    for fd in fds:
        os.close(fd)
    x = torch.full((SIZE // 4,), PATTERN, dtype=torch.int32, device="cuda")
    torch.cuda.synchronize()
    _say({"left": int(x.numel()), "device": torch.cuda.get_device_name(0)})
    os._exit(0)


def find_pattern(fds: list[int], payload: dict[str, str]) -> None:
    """Allocate without initialising and count the previous job's PATTERN: device memory left readable?"""
    import torch  # noqa: PLC0415

    for fd in fds:
        os.close(fd)
    found = 0
    for _ in range(4):
        x = torch.empty((SIZE // 4,), dtype=torch.int32, device="cuda")
        found += int((x == PATTERN).sum().item())
        del x
    _say({"found": found, "of": 4 * (SIZE // 4)})
