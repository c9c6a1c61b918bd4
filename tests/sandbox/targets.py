"""Small job targets for the sandbox tests, imported by the zygote (trusted) before each job's isolation.

Each is called as target(fds, payload) inside the job and prints one JSON line of observations.
Keep this module free of imports from tests/ (the repository is hidden from isolated jobs).
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import time


def _say(**observed) -> None:
    print("RESULT " + json.dumps(observed), flush=True)


def _try(action) -> str:
    """'ok' or the error's name."""
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, type(exc).__name__) if exc.errno else type(exc).__name__
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__
    return "ok"


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(4096)


def identity(fds, payload) -> None:
    _say(
        uid=os.getuid(),
        gid=os.getgid(),
        euid=os.geteuid(),
        groups=os.getgroups(),
        pid=os.getpid(),
        ppid=os.getppid(),
        cwd=os.getcwd(),
        home=os.environ.get("HOME"),
        tmpdir=os.environ.get("TMPDIR"),
        hostname=socket.gethostname(),
        env=sorted(os.environ),
    )


def network(fds, payload) -> None:
    def inet():
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()

    def connect():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect(("127.0.0.1", payload.get("port", 9)))

    def netlink():
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()

    def unix():
        a, b = socket.socketpair()
        a.close()
        b.close()

    _say(
        inet=_try(inet),
        inet6=_try(lambda: socket.socket(socket.AF_INET6).close()),
        connect=_try(connect),
        netlink=_try(netlink),
        unix=_try(unix),
        interfaces=_try(socket.if_nameindex),
    )


def read_paths(fds, payload) -> None:
    found = {}
    for path in payload["paths"]:
        try:
            data = _read(path) if not os.path.isdir(path) else "\n".join(os.listdir(path)).encode()
            found[path] = "empty" if not data else "READ"
        except OSError as exc:
            found[path] = errno.errorcode.get(exc.errno or 0, "OSError")
    _say(**found)


def write_paths(fds, payload) -> None:
    found = {}
    for path in payload["paths"]:

        def write(p=path):
            with open(p, "w") as fh:
                fh.write("x")

        found[path] = _try(write)
    _say(**found)


def allocate(fds, payload) -> None:
    """Touch payload['mib'] MiB in 16 MiB steps, then report (if still alive)."""
    blocks = []
    for _ in range(payload["mib"] // 16):
        blocks.append(bytearray(16 << 20))
    _say(allocated=len(blocks) * 16)


def fork_bomb(fds, payload) -> None:
    children, error = [], "none"
    for _ in range(payload.get("tries", 1000)):
        try:
            pid = os.fork()
        except OSError as exc:
            error = errno.errorcode.get(exc.errno or 0, "OSError")
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    _say(forked=len(children), error=error)


def detach(fds, payload) -> None:
    """Leave a setsid'd double-forked grandchild holding fds[0]; it would live for 60 s."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        os._exit(0)
    os.wait()
    _say(detached=True)
    if payload.get("hang"):
        while True:
            time.sleep(1)


def fill_shm(fds, payload) -> None:
    written, error = 0, "none"
    try:
        with open("/dev/shm/fill", "wb") as fh:
            chunk = b"\0" * (1 << 20)
            for _ in range(payload["mib"]):
                fh.write(chunk)
                fh.flush()
                written += 1
    except OSError as exc:
        error = errno.errorcode.get(exc.errno or 0, "OSError")
    _say(written_mib=written, error=error)


def syscalls(fds, payload) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def call(fn, *args):
        def run():
            if fn(*args) != 0:
                raise OSError(ctypes.get_errno(), "")

        return run

    _say(
        unshare=_try(call(libc.unshare, 0x40000000)),
        mount=_try(call(libc.mount, b"none", b"/tmp", b"tmpfs", 0, None)),
        ptrace=_try(call(libc.ptrace, 0, 0, 0, 0)),
        setuid0=_try(lambda: os.setuid(0)),
        kill_init=_try(lambda: os.kill(1, 9)),
        no_new_privs=open("/proc/self/status").read().split("NoNewPrivs:")[1].split()[0],
        seccomp=open("/proc/self/status").read().split("Seccomp:")[1].split()[0],
        subprocess=_try(lambda: __import__("subprocess").run(["true"], check=True)),
    )


def exit_with(fds, payload) -> None:
    if "signal" in payload:
        os.kill(os.getpid(), payload["signal"])
        time.sleep(5)
    if payload.get("abort"):
        os.abort()
    sys.stdout.flush()
    os._exit(payload.get("code", 0))


def sleep(fds, payload) -> None:
    time.sleep(payload.get("seconds", 60))


def compile_torch(fds, payload) -> None:
    import getpass

    import torch

    def f(x):
        return torch.sin(x) * 2 + 1

    x = torch.randn(64)
    results = {"user": getpass.getuser()}
    for backend in payload.get("backends", ["aot_eager", "inductor"]):
        torch._dynamo.reset()
        try:
            out = torch.compile(f, backend=backend)(x)
            results[backend] = "ok" if torch.allclose(out, f(x)) else "wrong"
        except Exception as exc:  # noqa: BLE001
            results[backend] = f"{type(exc).__name__}: {str(exc)[-500:]}"
    _say(**results)


def open_fds(fds, payload) -> None:
    found = {}
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            found[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass  # the listing's own fd, closed already
    _say(fds=found, cwd=os.getcwd())


def flood(fds, payload) -> None:
    """Write to stdout until the sandbox's output cap stops the job."""
    chunk = "x" * 65536
    while True:
        sys.stdout.write(chunk)


def parked(fds, payload) -> None:
    """A parked job: wait for one byte on its socket (its work), then sleep as long as the payload says; then,
    if asked, leave an orphan behind and exit with a code or die of a signal."""
    with socket.socket(fileno=fds[0]) as work:
        if not work.recv(1):
            return
    time.sleep(payload.get("seconds", 0))
    if payload.get("orphan") and os.fork() == 0:
        if os.fork() == 0:
            time.sleep(60)  # reparented to the namespace's init: it must die with the job
        os._exit(0)
    if "signal" in payload:
        os.kill(os.getpid(), payload["signal"])
    if "exit" in payload:
        os._exit(payload["exit"])
