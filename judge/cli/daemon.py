"""The warm local judge: a detached process of the learner's own that keeps a Judge warm between CLI runs.

It listens on a unix socket in a folder only its user can enter (judge.cli.daemon_wire), answers only
connections from its own uid, judges one request per connection (several at once), and ends after
PRACTICE_DAEMON_IDLE seconds without one, on `judge daemon stop`, or when a request shows that it is stale
(another judge or torch installed, the judge's code edited, the problem's files changed).
Run as `python -m judge.cli.daemon SOCKET SETTINGS_JSON` by judge.cli.daemon_client, never by hand.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.cli.daemon_wire import Lines, ended_note, identity, send
from judge.errors import JudgeError
from judge.settings import Settings

if TYPE_CHECKING:
    from judge.report.events import Event
    from judge.service import Judge

_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def peer_uid(conn: socket.socket) -> int:
    _pid, uid, _gid = _UCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
    return int(uid)


class WarmJudge:
    """The listening socket, the warm Judge behind it, and when to end."""

    def __init__(self, path: Path, settings: Settings):
        self.path, self.settings = path, settings
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is born 0600: there is no moment at which others could connect
        try:
            if path.is_socket():
                path.unlink()  # the client holds the start lock: a socket here is a dead daemon's
            self.listener.bind(str(path))
        finally:
            os.umask(old)
        self.listener.listen(16)
        self.inode = path.stat().st_ino
        self.identity = identity(settings)
        self.started = time.time()
        self.lock = threading.Lock()
        self.active, self.last = 0, time.monotonic()
        self.stopping = threading.Event()
        self._judge: Judge | None = None
        self._judge_ready = threading.Event()

    # -- lifetime --

    def serve(self) -> None:
        threading.Thread(target=self._start_judge, name="warm", daemon=True).start()
        threading.Thread(target=self._watch_idle, name="idle", daemon=True).start()
        self.listener.settimeout(0.5)
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            threading.Thread(target=self._connection, args=(conn,), name="request", daemon=True).start()
        self._unlink()
        deadline = time.monotonic() + 600
        while self.active and time.monotonic() < deadline:  # runs under way finish (a stale judge drains)
            time.sleep(0.1)
        if self._judge is not None:
            self._judge.close()

    def _start_judge(self) -> None:
        from judge.service import Judge  # noqa: PLC0415 - after the socket is bound: clients queue meanwhile

        self._judge = Judge(self.settings)
        self._judge_ready.set()
        try:
            self._judge.warm()
        except Exception as exc:  # noqa: BLE001 - the first judgement retries and reports its own fault
            print(f"warming failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)

    def judge(self) -> Judge:
        self._judge_ready.wait()
        assert self._judge is not None
        return self._judge

    def _watch_idle(self) -> None:
        while not self.stopping.wait(1.0):
            with self.lock:
                idle = not self.active and time.monotonic() - self.last > self.settings.daemon_idle
            if idle:
                # Said to the next run, which starts cold: a learner back from reading the statement should know
                # why that run is slower (judge.cli.daemon_client.connect).
                ended_note(self.path).write_text(json.dumps({"why": "idle", "idle_s": self.settings.daemon_idle}))
                self.stop()

    def stop(self) -> None:
        """Stop taking connections now (a successor may bind the path at once); runs under way finish."""
        self.stopping.set()
        self._unlink()

    def _unlink(self) -> None:
        try:
            if self.path.stat().st_ino == self.inode:  # never a successor's socket
                self.path.unlink()
        except OSError:
            pass

    # -- one connection --

    def _connection(self, conn: socket.socket) -> None:
        with conn:
            if peer_uid(conn) != os.getuid():
                return  # the folder and the mode already keep others out; this says so twice
            try:
                request = Lines(conn).read()
                if request is not None:
                    self._answer(conn, request)
            except OSError:
                pass  # the client went away (Ctrl-C): nothing to tell anyone

    def _answer(self, conn: socket.socket, request: dict[str, Any]) -> None:
        op = request.get("op")
        if op == "status":  # neither status nor stop counts as use: asking does not keep it alive
            send(conn, self.status())
        elif op == "stop":
            send(conn, {"stopping": True, "pid": os.getpid()})
            self.stop()
        elif op in ("grade", "try"):
            with self.lock:
                self.active += 1
            try:
                (self._grade if op == "grade" else self._try)(conn, request)
            finally:
                with self.lock:
                    self.active -= 1
                    self.last = time.monotonic()
        # anything else is not from this version's client: closing the connection is the whole answer

    def status(self) -> dict[str, Any]:
        with self.lock:
            active, idle = self.active, time.monotonic() - self.last
        return {
            "pid": os.getpid(),
            "socket": str(self.path),
            "identity": self.identity,
            "uptime_s": round(time.time() - self.started, 1),
            "busy": active,
            "idle_s": round(idle, 1),
            "idle_limit_s": self.settings.daemon_idle,
            "warm": self._judge is not None,
        }

    def _stale(self, request: dict[str, Any]) -> str:
        """Why this daemon cannot judge the request as an in-process judge would, or ''."""
        theirs = request.get("identity") or {}
        for key, mine in self.identity.items():  # as this process loaded it: a later edit is another judge
            if theirs.get(key) != mine:
                return f"{key} changed"
        try:
            problem = self.judge().problem(str(request.get("problem")))
        except JudgeError:
            return "the problems folder changed"  # the client found it: this daemon's copy is older
        if problem.digest != request.get("digest"):
            return f"the files of problem {problem.id} changed"
        return ""

    def _refused_stale(self, conn: socket.socket, request: dict[str, Any]) -> bool:
        stale = self._stale(request)
        if stale:
            # Free the path before answering: the client retries at once, and must find no socket (so it starts a
            # fresh judge), not this one's listener, which takes no more connections.
            self.stop()  # this one ends when its runs do
            send(conn, {"stale": stale})
        return bool(stale)

    def _try(self, conn: socket.socket, request: dict[str, Any]) -> None:
        """`judge try`: the learner's operator and the reference on the learner's own input (no events)."""
        if self._refused_stale(conn, request):
            return
        try:
            result = self.judge().try_input(
                str(request["problem"]),
                base64.b64decode(request["source"]),
                str(request["input"]),
                display_name=request.get("display_name"),
            )
        except JudgeError as exc:
            send(conn, {"error": {"kind": type(exc).__name__, "text": exc.text.model_dump()}})
            return
        send(conn, {"result": result.model_dump(mode="json")})

    def _grade(self, conn: socket.socket, request: dict[str, Any]) -> None:
        if self._refused_stale(conn, request):
            return
        sending, gone = threading.Lock(), threading.Event()

        def on_event(event: Event) -> None:
            if gone.is_set():
                return
            with sending:
                try:
                    send(conn, {"event": event.model_dump(mode="json")})
                except OSError:  # the learner pressed Ctrl-C: the judgement ends as usual, its warm parents kept
                    gone.set()

        try:
            report = self.judge().grade(
                str(request["problem"]),
                base64.b64decode(request["source"]),
                mode=request["mode"],
                on_event=on_event if request.get("events") else None,
                display_name=request.get("display_name"),
            )
        except JudgeError as exc:
            send(conn, {"error": {"kind": type(exc).__name__, "text": exc.text.model_dump()}})
            return
        with sending:
            send(conn, {"report": report.model_dump(mode="json")})


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path, settings = Path(args[0]), Settings.model_validate_json(args[1])
    os.chdir("/")  # detached: hold no folder of the learner's
    WarmJudge(path, settings).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
