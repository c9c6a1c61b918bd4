"""A queue process started while PostgreSQL or Redis is unreachable: one line saying which and where, then a wait
with backoff until it answers. A server that answers with a refusal that waiting will not change (a wrong password,
no such database) is not waited for: one clear line (a JudgeError) instead."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urlsplit

import redis
from kombu.exceptions import KombuError

from judge.errors import JudgeError
from judge.queue.outage import store_unreachable
from judge.queue.store import make_engine, require_migrated

T = TypeVar("T")
FIRST_PAUSE_S, LONGEST_PAUSE_S = 0.5, 5.0
# PostgreSQL's answers worth waiting out: a connection that failed (SQLSTATE class 08), a server short of resources
# (53, too many connections) or starting up or shutting down (57). Any other (28: authentication; 3D: no such
# database) will not change by waiting. An error while connecting carries no SQLSTATE, only libpq's text: there a
# server that answered says FATAL, and these of its answers are worth waiting out.
WAITABLE_SQLSTATE = ("08", "53", "57")
WAITABLE_FATAL = ("starting up", "shutting down", "in recovery mode", "not yet accepting", "too many clients", "slots")
DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "redis": 6379, "rediss": 6379}


class Refused(JudgeError):
    """The database or the broker answered, and the answer will not change by waiting (or the wait was stopped)."""


def where(url: str) -> str:
    """host:port of a database or Redis URL, never its credentials (a SQLite file or a socket: its path)."""
    split = urlsplit(url)
    scheme = split.scheme.split("+")[0]
    if scheme in ("sqlite", "unix"):
        return split.path
    try:
        port = split.port
    except ValueError:  # not a number: say what was given
        port = None
    return f"{split.hostname or 'localhost'}:{port or DEFAULT_PORTS.get(scheme, '?')}"


def _reason(exc: BaseException) -> str:
    cause = getattr(exc, "orig", None) or exc
    lines = str(cause).strip().splitlines()
    return (lines[0] if lines else type(cause).__name__)[:200]


def database_away(exc: BaseException) -> bool:
    """An error of a database that did not answer, or answered that it cannot serve yet."""
    if not store_unreachable(exc) or hasattr(getattr(exc, "orig", None), "sqlite_errorcode"):
        return False  # a SQLite file that cannot be opened will not open by waiting
    state = getattr(getattr(exc, "orig", None), "sqlstate", None)
    if state is not None:
        return str(state)[:2] in WAITABLE_SQLSTATE
    said = str(getattr(exc, "orig", None) or exc)
    return "FATAL:" not in said or any(hint in said for hint in WAITABLE_FATAL)


def broker_away(exc: BaseException) -> bool:
    """An error of a Redis that did not answer, is loading its data, or refuses writes (MISCONF: a full disk)."""
    if isinstance(exc, redis.AuthenticationError):
        return False
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
        return True
    return isinstance(exc, redis.ResponseError) and str(exc).startswith("MISCONF")


def wait_for(attempt: Callable[[], T], what: str, who: str, away: Callable[[BaseException], bool]) -> T:
    """attempt() until it answers. While it fails as `away` says a service does that is not there yet, one line
    ("who: waiting for what (why) ...") and a backoff from FIRST_PAUSE_S to LONGEST_PAUSE_S; when it comes, one
    more line. A refusal that waiting will not change: Refused, with what and why. Other errors are raised."""
    pause, told = FIRST_PAUSE_S, False
    while True:
        try:
            result = attempt()
        except Exception as exc:
            if not (store_unreachable(exc) or isinstance(exc, redis.RedisError)):
                raise
            if not away(exc):
                raise Refused(f"{who}: {what} refused: {_reason(exc)}") from None
            if not told:
                print(f"{who}: waiting for {what} ({_reason(exc)}) …", flush=True)
                told = True
            try:
                time.sleep(pause)
            except KeyboardInterrupt:
                raise Refused(f"{who}: stopped while waiting for {what}") from None
            pause = min(pause * 2, LONGEST_PAUSE_S)
            continue
        if told:
            print(f"{who}: {what} answers; going on", flush=True)
        return result


def schema_checked(url: str, who: str) -> None:
    """Wait for the database at `url`, then check it is at this version's schema revision (store.Unmigrated)."""

    def check() -> None:
        engine = make_engine(url)
        try:
            require_migrated(engine)
        finally:
            engine.dispose()

    wait_for(check, f"the database at {where(url)}", who, database_away)


def unreachable_line(exc: BaseException, who: str, database_url: str, queue_url: str | None) -> str | None:
    """For a one-shot command (`judge status`, `judge db upgrade`), where waiting makes no sense: the line that says
    which service is unreachable and where, or None when `exc` is not such an error."""
    if store_unreachable(exc):
        return f"{who}: the database at {where(database_url)} is unreachable ({_reason(exc)})"
    if isinstance(exc, redis.RedisError | KombuError | ConnectionError) and queue_url:
        return f"{who}: the broker at {where(queue_url)} is unreachable ({_reason(exc)})"
    return None
