"""A job target that looks at its own sandbox from the inside (used by `judge doctor`).

It prints one line, "SELFTEST {json}", with what an untrusted worker could and could not do here.
"""

from __future__ import annotations

import errno
import json
import os
import socket

from sandbox import seccomp_filter


def _outcome(action) -> str:
    try:
        action()
    except OSError as exc:
        return f"blocked ({errno.errorcode.get(exc.errno or 0, exc.errno)})"
    return "allowed"


def _open(path: str, mode: str):
    def act():
        with open(path, mode) as fh:
            if "r" in mode and not fh.read(1):
                raise OSError(errno.ENODATA, "empty")

    return act


def _inet() -> None:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()


def _fenced_write() -> str:
    """What the worker's guard leaves of a channel: write to a fenced socket (the last step of `check`:
    the fence stays on this process)."""
    ours, _theirs = socket.socketpair()
    state = seccomp_filter.fence(ours.fileno())
    if state != "active":
        return f"not fenced: {state}"
    return _outcome(lambda: os.write(ours.fileno(), b"x"))


def check(fds, payload) -> None:
    seen = {
        "uid": str(os.getuid()),
        "pid in namespace": str(os.getpid()),
        "open an inet socket": _outcome(_inet),
        "read /etc/shadow": _outcome(_open("/etc/shadow", "r")),
        "write outside scratch (/var/tmp)": _outcome(_open("/var/tmp/.selftest", "w")),
        "write in scratch": _outcome(_open(os.path.join(os.getcwd(), ".selftest"), "w")),
    }
    for path in payload.get("secret", []):
        seen[f"see {path}"] = _outcome(lambda p=path: os.listdir(p))
    seen["write to a fenced channel"] = _fenced_write()
    print("SELFTEST " + json.dumps(seen), flush=True)
