"""The CLI's side of the warm local judge: find it (or start it, detached), send one file, relay its events.

grade() returns the Report the warm judge made, or None when there is none to use (then the CLI judges
in-process, as with --no-daemon): a stale judge is replaced once, a lost one is said once.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from judge import errors
from judge.cli.daemon_wire import Lines, ended_note, identity, runtime_dir, send, socket_path
from judge.problem.folders import Problem
from judge.report.catalog import say
from judge.report.events import EVENT, EventSink
from judge.report.i18n import Lang, Text
from judge.report.models import Mode, Report
from judge.report.trying import TryResult
from judge.settings import Settings
from sandbox.reaper import alive

START_TIMEOUT_S = 120.0  # a cold start imports the judge (seconds, more on a busy machine)


class Lost(Exception):
    """The warm judge went away during the run."""


def grade(
    settings: Settings,
    problem: Problem,
    source: bytes,
    mode: Mode,
    on_event: EventSink | None,
    display_name: str,
    err: Console,
) -> Report | None:
    """The warm judge's report; JudgeError as in-process; None: judge in-process (after saying why, if it matters,
    in settings.lang)."""
    request = {
        "op": "grade",
        "source": base64.b64encode(source).decode("ascii"),
        "mode": mode,
        "display_name": display_name,
        "events": on_event is not None,
    }
    answer = _ask(settings, problem, request, on_event, err)
    return Report.model_validate(answer["report"]) if answer is not None else None


def try_input(
    settings: Settings, problem: Problem, source: bytes, input_text: str, display_name: str, err: Console
) -> TryResult | None:
    """The warm judge's Try (judge.grading.trying); JudgeError as in-process; None: try it in-process."""
    request = {
        "op": "try",
        "source": base64.b64encode(source).decode("ascii"),
        "input": input_text,
        "display_name": display_name,
    }
    answer = _ask(settings, problem, request, None, err)
    return TryResult.model_validate(answer["result"]) if answer is not None else None


def _ask(
    settings: Settings,
    problem: Problem,
    request: dict[str, Any],
    on_event: EventSink | None,
    err: Console,
) -> dict[str, Any] | None:
    """Send `request` about `problem` to the warm judge (starting it, replacing a stale one once) and return its
    answer ({"report": ...} or {"result": ...}); JudgeError as in-process; None: do it in-process instead (after
    saying why, if it matters, in settings.lang)."""
    lang = settings.lang
    settings = _absolute(settings)
    path = socket_path(settings, identity(settings))
    if path is None:
        return None
    request = {**request, "problem": problem.id, "digest": problem.digest}
    timeout = 2 * problem.meta.limits.wall_s + START_TIMEOUT_S  # hidden events come only when their pass ends
    for _attempt in range(2):  # a stale judge stops and frees the path; the second try starts a fresh one
        request["identity"] = identity(settings)  # again: what changed may be this checkout, since the first try
        _said_why_it_ended(path, err, lang)
        conn = connect(path, settings)
        if conn is None:
            err.print(say("daemon.no_start").get(lang))
            return None
        with conn:
            conn.settimeout(timeout)
            try:
                answer = _exchange(conn, request, on_event)
            except Lost:
                if on_event is not None:
                    err.print()  # end the line of marks the lost run had begun
                err.print(say("daemon.lost").get(lang))
                return None
        if "stale" in answer:
            # A replaced warm judge says why, in one line: the next run is cold, and the learner should know it is
            # the judge's doing (torch or the judge upgraded, the checkout edited, the exercise's files changed).
            err.print(say("daemon.replaced", why=str(answer["stale"])[:200]).get(lang), highlight=False, markup=False)
            continue
        if "error" in answer:
            raise _error(answer["error"])
        return answer
    err.print(say("daemon.changing").get(lang))  # still changing (files being edited): judge here
    return None


def _said_why_it_ended(path: Path, err: Console, lang: Lang) -> None:
    """The warm judge ended by itself since the last run (idle): say so once, as this run starts a new one."""
    note = ended_note(path)
    try:
        why = json.loads(note.read_text())
        note.unlink()
    except (OSError, ValueError):
        return
    if isinstance(why, dict) and why.get("why") == "idle" and _try_connect_quietly(path) is False:
        seconds = float(why.get("idle_s", 0))
        idle = f"{seconds / 60:g} min" if seconds >= 120 else f"{seconds:g} s"
        err.print(say("daemon.idle_ended", idle=idle).get(lang), highlight=False, markup=False)


def _try_connect_quietly(path: Path) -> bool:
    conn = _try_connect(path)
    if conn is None:
        return False
    conn.close()
    return True


def _exchange(conn: socket.socket, request: dict[str, Any], on_event: EventSink | None) -> dict[str, Any]:
    try:
        send(conn, request)
    except OSError:
        raise Lost from None
    lines = Lines(conn)
    while True:
        message = lines.read()
        if message is None:
            raise Lost
        if "event" in message:
            if on_event is not None:
                on_event(EVENT.validate_python(message["event"]))
            continue
        if {"report", "result", "error", "stale"} & message.keys():
            return message
        raise Lost


def _error(error: dict[str, Any]) -> errors.JudgeError:
    kind = getattr(errors, str(error.get("kind")), errors.JudgeError)
    if not (isinstance(kind, type) and issubclass(kind, errors.JudgeError)):
        kind = errors.JudgeError
    return kind(Text.model_validate(error.get("text") or {}))


def _absolute(settings: Settings) -> Settings:
    """The daemon runs from /, so relative folders are made absolute here, in the learner's folder."""
    folders = {"problems_dir": settings.problems_dir.resolve(), "solutions_dir": settings.solutions_dir.resolve()}
    return settings.model_copy(update=folders)


def connect(path: Path, settings: Settings) -> socket.socket | None:
    """A connection to the warm judge at path, started (detached) if none answers; None if it cannot start."""
    conn = _try_connect(path)
    if conn is not None:
        return conn
    with _start_lock(path):  # two terminals starting at once: one starts it, the other finds it
        conn = _try_connect(path)
        if conn is not None:
            return conn
        process = _spawn(path, settings)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None:
            conn = _try_connect(path)
            if conn is not None:
                return conn
            time.sleep(0.05)
    return None


def _try_connect(path: Path) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    return conn


@contextmanager
def _start_lock(path: Path) -> Iterator[None]:
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _spawn(path: Path, settings: Settings) -> subprocess.Popen[bytes]:
    """The daemon, in a session of its own (no terminal's Ctrl-C or hang-up reaches it); its log beside the socket."""
    log = open(path.with_suffix(".log"), "wb")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "judge.cli.daemon", str(path), settings.model_dump_json()],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd="/",
            env={**os.environ, "PYTHONPATH": _import_path()},
        )
    finally:
        log.close()


def _import_path() -> str:
    """This checkout first, so that `python practice/judge.py` from a plain clone starts the same judge."""
    root = str(Path(__file__).resolve().parents[2])
    return os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH", "")]))


# -- judge daemon status|stop --


def daemons(settings: Settings) -> list[Path]:
    folder = runtime_dir(settings)
    return sorted(folder.glob("judge-*.sock")) if folder is not None else []


def ask(path: Path, op: str, timeout: float = 10.0) -> dict[str, Any] | None:
    conn = _try_connect(path)
    if conn is None:
        return None
    with conn:
        conn.settimeout(timeout)
        try:
            send(conn, {"op": op})
        except OSError:
            return None
        return Lines(conn).read()


def stop_all(settings: Settings, wait_s: float = 30.0) -> list[int]:
    """Stop every warm judge of this user's runtime folder; the pids that were asked to stop, once they are gone."""
    pids = [int(answer["pid"]) for path in daemons(settings) if (answer := ask(path, "stop"))]
    deadline = time.monotonic() + wait_s
    # reap: the test suite starts the warm judges as its own children
    while time.monotonic() < deadline and any(alive(pid, reap=True) for pid in pids):
        time.sleep(0.05)
    return pids


def statuses(settings: Settings) -> list[dict[str, Any]]:
    """What each warm local judge of this user says of itself (`judge daemon status --json`), with its socket."""
    return [{**answer, "socket": str(path)} for path in daemons(settings) if (answer := ask(path, "status"))]


def status_lines(settings: Settings) -> list[str]:
    """`judge daemon status` in sentences, in the learner's language: how many, and for each what it judges, how
    long it has been idle and will wait, and the judging settings in which it differs from this terminal's."""
    lang, found = settings.lang, statuses(settings)
    if not found:
        return [say("daemon.none").get(lang)]
    defaults = settings.model_dump(mode="json")
    lines = [say("daemon.count", n=len(found)).get(lang)]
    for answer in found:
        ident = answer.get("identity", {})
        idle, limit = float(answer.get("idle_s", 0)), float(answer.get("idle_limit_s", 0))
        busy = int(answer.get("busy", 0))
        held = dict(ident.get("settings", {}))
        changed = {k: v for k, v in held.items() if k in defaults and defaults[k] != v and k != "problems_dir"}
        pairs = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(changed.items()))
        said = say(
            "daemon.status",
            pid=answer.get("pid"),
            problems=ident.get("problems_dir", "?"),
            judge=ident.get("judge", "?"),
            torch=ident.get("torch", "?"),
            busy=say("daemon.busy", n=busy) if busy else say("daemon.not_busy"),
            idle=idle,
            left=max(0.0, limit - idle),
            socket=answer["socket"],
        )
        settings_said = say("daemon.settings_differ", pairs=pairs) if pairs else say("daemon.settings_default")
        lines.append("  " + (said + Text(zh="", en=" ") + settings_said).get(lang))
    return lines
