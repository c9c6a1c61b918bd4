"""A job target that looks at its own sandbox from the inside (used by `judge doctor`).

It prints one line, "SELFTEST {json}", with what an untrusted worker could and could not do here.
"""

from __future__ import annotations

import errno
import json
import os
import socket


def _outcome(action) -> str:
    try:
        action()
    except OSError as exc:
        return f"blocked ({errno.errorcode.get(exc.errno, exc.errno)})"
    return "allowed"


def _open(path: str, mode: str):
    def act():
        with open(path, mode) as fh:
            if "r" in mode and not fh.read(1):
                raise OSError(errno.ENODATA, "empty")
    return act


def _inet() -> None:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()


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
    print("SELFTEST " + json.dumps(seen), flush=True)
