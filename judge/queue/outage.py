"""What the queue's processes do while the store or the broker is away: tell it from other errors, wait for it to
come back, and say so in the log once per outage rather than once per event."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

try:  # the queue's broker client: the `scale` extra (the learner's install has no broker to lose)
    import redis

    REDIS_ERRORS: tuple[type[Exception], ...] = (redis.RedisError,)
except ImportError:
    redis = None  # type: ignore[assignment]
    REDIS_ERRORS = ()

STORE_WAIT_S = 120.0  # how long a worker's task waits for the store before its message goes back to the queue
LOG_EVERY_S = 30.0  # one log line per outage and kind, then one per this many seconds with a count


def store_unreachable(exc: BaseException) -> bool:
    """The database is away, refuses connections, or cannot write (a full disk): not a fault of the submission's,
    nor of the judge's. A task that meets it goes back to the queue instead of being lost."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def wait_until(check: Callable[[], object], seconds: float, stop: threading.Event | None = None) -> bool:
    """Call check() with backoff (0.5 s doubling to 5 s) until it raises nothing or `seconds` pass: whether it did."""
    deadline, pause = time.monotonic() + seconds, 0.5
    while True:
        try:
            check()
            return True
        except Exception:  # noqa: BLE001 - still away: any error of the check means "not yet"
            pass
        if time.monotonic() + pause > deadline or (stop is not None and stop.wait(pause)):
            return False
        if stop is None:
            time.sleep(pause)
        pause = min(pause * 2, 5.0)


class OutageLog:
    """Logs the first error of each kind, then at most one line per LOG_EVERY_S with how many it held back, and
    one line when the kind is heard of again after `recovered(kind)`."""

    def __init__(self, log: logging.Logger, every_s: float = LOG_EVERY_S):
        self.log, self.every_s = log, every_s
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def error(self, kind: str, text: str) -> None:
        at = time.monotonic()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and at - last < self.every_s:
                self._held[kind] = self._held.get(kind, 0) + 1
                return
            held = self._held.pop(kind, 0)
            self._last[kind] = at
        more = f" ({held} more like it since the last line)" if held else ""
        self.log.warning("%s: %s%s", kind, text, more)

    def recovered(self, kind: str) -> None:
        with self._lock:
            was = self._last.pop(kind, None)
            held = self._held.pop(kind, 0)
        if was is not None:
            self.log.warning("%s: back (%d more errors held back)", kind, held)
