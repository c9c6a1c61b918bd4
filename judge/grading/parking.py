"""Parked pairs: the next Run's worker and checker, started while the learner edits, waiting for the file.

A warm Run spends a third of its time before its first case: forking the worker into its walls, loading the
probes, starting pytest and collecting the tests. None of that depends on the learner's file. So after a Run the
judge starts the next Run's pairs at once (one per shard), and they wait: the worker walled, its probes loaded,
its guard prepared but not armed (judge.worker.guard.prepare) and nothing of a learner's in it; the checker with its
tests collected. A Run that finds its
pairs parked hands them the work (judge.wire.jobs.ParkedWork): the checker takes its parts, passes the file to
the worker, which writes it, arms its stack dump and its guard, and imports it as a fresh worker does.

What a verdict rests on is unchanged: the worker's time limit counts from the work's arrival (the sandbox's
restart_clock), its guard is armed after the file's name is known and before the file runs, and a pair serves
one judgement only. A pair parked longer than PARKED_S dies unused; a pair that is not ready, or has died, is
dropped and the Run starts its own.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Hashable

from judge.grading.started import StartedPair
from judge.wire.jobs import PARKED_LINE, ParkedWork
from sandbox.client import ZygoteDied

log = logging.getLogger("judge.parking")
PARKED_S = 600.0  # how long a parked pair waits for a Run before its sandbox ends it
READY_WAIT_S = 30.0  # how long a Run waits for a parked pair still collecting (it would start one as slowly)


class ParkedPair:
    """One started pair and whether its checker has collected and waits (it sent PARKED_LINE)."""

    def __init__(self, pair: StartedPair):
        self.pair = pair
        self.ready = threading.Event()
        self.failed = False
        threading.Thread(target=self._await_ready, name="judge-parked", daemon=True).start()

    def _await_ready(self) -> None:
        try:
            got = self.pair.events.recv(len(PARKED_LINE), socket.MSG_WAITALL)
        except OSError:
            got = b""
        self.failed = got != PARKED_LINE  # a checker that ended, or said something else first (a collection error)
        self.ready.set()

    def usable(self, wait_s: float) -> bool:
        """Ready (waiting for its work) within `wait_s`, both jobs still running."""
        self.ready.wait(wait_s)
        return self.ready.is_set() and not self.failed and self.pair.alive()

    def close(self) -> None:
        """End a pair never used (its zygotes may be gone already: then so are its jobs)."""
        try:
            self.pair.close()
        except ZygoteDied:
            pass

    def go(self, work: ParkedWork) -> bool:
        """Give the pair its work: both time limits start now, then the checker reads the work. False, with the pair
        closed, when its checker ended since it was found ready: the Run then starts a pair of its own."""
        self.pair.worker.restart_clock()
        self.pair.checker.restart_clock()
        try:
            self.pair.events.sendall(work.frame())
        except OSError:
            self.close()
            return False
        return True


class Parking:
    """The judge's parked pairs, by key (a pass's problem, digest, mode, shard and runner): at most one set."""

    def __init__(self) -> None:
        self._pairs: dict[Hashable, ParkedPair] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._parking: list[threading.Thread] = []  # park() calls still starting their pairs
        self.taken = 0  # pairs handed to Runs so far

    def take(self, key: Hashable) -> ParkedPair | None:
        """The pair parked for `key`, ready and alive, or None (a pair that is not is dropped)."""
        with self._lock:
            parked = self._pairs.pop(key, None)
        if parked is None:
            return None
        if parked.usable(READY_WAIT_S):
            with self._lock:
                self.taken += 1
            return parked
        parked.close()
        return None

    def park(self, starts: Callable[[], dict[Hashable, Callable[[], StartedPair]]]) -> None:
        """Start a pair for each key `starts()` gives, in the background; pairs parked for other keys are dropped (one
        set is kept: the learner's next Run is most likely the same exercise's)."""
        thread = threading.Thread(target=self._park, args=(starts,), name="judge-park", daemon=True)
        with self._lock:
            self._parking = [*(t for t in self._parking if t.is_alive()), thread]
        thread.start()

    def _park(self, starts: Callable[[], dict[Hashable, Callable[[], StartedPair]]]) -> None:
        started: dict[Hashable, ParkedPair] = {}
        try:
            pending = starts()
        except Exception:
            log.warning("could not make the pairs to park", exc_info=True)
            pending = {}
        for key, start in pending.items():
            if self._closed:
                break
            try:
                started[key] = ParkedPair(start())
            except ZygoteDied:  # the judge is closing, or its zygote died: the next Run starts afresh
                log.debug("no pair parked for %s: its zygote is gone", key)
            except Exception:
                log.warning("could not park a pair for %s", key, exc_info=True)
        with self._lock:
            dropped = list(self._pairs.values())
            self._pairs = {} if self._closed else started
            if self._closed:
                dropped += started.values()
        for pair in dropped:
            pair.close()

    def pairs(self) -> list[ParkedPair]:
        """The pairs parked now."""
        with self._lock:
            return list(self._pairs.values())

    def settle(self, timeout: float = READY_WAIT_S) -> bool:
        """Wait until every parked pair is ready (a benchmark's pause between Runs, as a learner's edit is)."""
        end = time.monotonic() + timeout
        with self._lock:
            parking = list(self._parking)
        for thread in parking:
            thread.join(max(end - time.monotonic(), 0))
        with self._lock:
            pairs = list(self._pairs.values())
        return all(pair.ready.wait(max(end - time.monotonic(), 0)) for pair in pairs)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pairs, self._pairs = list(self._pairs.values()), {}
        for pair in pairs:
            pair.close()
