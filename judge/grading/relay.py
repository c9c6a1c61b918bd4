"""The checker's events, read into a log per pass and passed on to the front end (hidden cases held to the end).

Every pass of a judgement (each tier, each shard of a split Run) reads its checker's events through one Relay, so
the counts run on across passes and the learner is told the whole count once.
"""

from __future__ import annotations

import socket
import threading

from judge.checker import events as checker_events
from judge.grading.decide import CheckerLog
from judge.report.events import CaseFinished, CaseStarted, Collected, EventSink
from judge.report.models import CaseResult


class Relay:
    """Reads checker events into a log per pass, passing learner-safe ones on; counts run on across passes."""

    def __init__(self, emit: EventSink):
        self.emit, self.total, self.done, self.hidden_no = emit, 0, 0, 0
        self.lock = threading.Lock()  # the shards of a split Run are read on threads of their own, at once
        self.told_among = False  # a split Run's count of cases has been told (every shard's checker sends it)
        self.told_hidden = False  # hidden cases are announced once, as a phase: no per-case timing leaves
        # Every event about a hidden case is held until the hidden pass ends, then released together: when
        # each one finished would tell a client how long the submission took on that hidden input.
        self.held: list[CaseFinished] = []

    def read(self, sock: socket.socket) -> CheckerLog:
        log = CheckerLog()
        try:
            self._read(sock, log)
        finally:
            with self.lock:
                self._release()  # the pass is over (or its checker is gone): the hidden cases' events go out now
        return log

    def _release(self) -> None:
        held, self.held = self.held, []
        for event in held:
            self.emit(event)

    def _read(self, sock: socket.socket, log: CheckerLog) -> None:
        for event in checker_events.read_events(sock):
            with self.lock:
                self._handle(event, log)

    def _handle(self, event: checker_events.CheckerEvent, log: CheckerLog) -> None:
        match event:
            case checker_events.Collected():
                log.collected = event.cases
                if not event.among:
                    self.total += len(log.collected)
                    self.emit(Collected(total=self.total))
                elif not self.told_among:  # the first shard to collect tells the whole Run's count, once
                    self.told_among = True
                    self.total += event.among
                    self.emit(Collected(total=self.total))
            case checker_events.ImportFailed():
                log.import_error, log.import_message = event.error, event.message
            case checker_events.CollectError():
                log.collect_errors.append(event.detail)
            case checker_events.CaseStarted():
                log.started.append(event.id)
                self._started(event)
            case checker_events.CaseEnded():
                self._finished(log, event)
            case checker_events.Flagged():
                log.flags.update(event.flags)  # for instructors only: nothing of it reaches the learner
            case checker_events.Finished():
                log.exit_code = event.exit_code

    def _started(self, event: checker_events.CaseStarted) -> None:
        if not event.hidden:
            self._release()  # a public case after hidden ones: the hidden pass before it has ended
            self.emit(CaseStarted(name=event.name))
        elif not self.told_hidden:
            self.told_hidden = True
            self.emit(CaseStarted(hidden=True))

    def _finished(self, log: CheckerLog, event: checker_events.CaseEnded) -> None:
        case = CaseResult(
            name=event.name,
            hidden=event.hidden,
            outcome=event.outcome,
            message=event.message,
            hint=event.hint,
            detail=event.detail,
            duration_s=event.duration_s,
            tampered=event.tampered,
            line=event.line,
        )
        log.finished[event.id] = case
        if event.trace_request is not None and not event.hidden:
            log.trace_requests[event.id] = event.trace_request
        self.done += 1
        self.hidden_no += case.hidden
        finished = CaseFinished.of(case, self.done, self.total, self.hidden_no)
        if case.hidden:
            self.held.append(finished)
        else:
            self._release()
            self.emit(finished)
