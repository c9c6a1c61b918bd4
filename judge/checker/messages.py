"""Turn what went wrong in a case into the text a learner reads, in both languages."""

from __future__ import annotations

import pytest

from judge.checker.errors import LearnerError, OutOfMemory, Refused, Tampered, WorkerLost
from judge.checker.remote import ImportFailed
from judge.report.catalog import MESSAGES, say
from judge.report.feedback import as_text, decode, msg
from judge.report.i18n import Text
from judge.report.textsafe import shorten
from judge.wire.protocol import ImportRaised


class CaseFailed(AssertionError):
    """A case failed with a message already in both languages (the probe fixture's hint)."""

    def __init__(self, text: Text, line: int | None = None):
        self.text, self.line = text, line  # line: where the learner's code raised, when it did
        super().__init__(msg(text.zh, text.en))


class NotRun(Exception):
    """The learner's file never imported (or never finished importing): the case did not run."""


def where(display_name: str, line: int | None) -> Text | str:
    return say("where", file=display_name, line=line) if line else ""


def import_failure(error: ImportRaised, display_name: str) -> Text:
    """One line: what stopped the import, and where (the judge adds the source line and a hint)."""
    return say(
        "import.failed",
        error=error_text(str(error.get("type")), str(error.get("message"))),
        where=where(display_name, error.get("learner_line")),
    )


def case_message(exc: BaseException, display_name: str) -> Text:
    if isinstance(exc, (CaseFailed, Refused)):
        return exc.text
    if isinstance(exc, LearnerError):
        return say(
            "case.raised", error=error_text(exc.type_name, exc.message), where=where(display_name, exc.learner_line)
        )
    if isinstance(exc, Tampered):
        return say("case.tampered")
    if isinstance(exc, OutOfMemory):
        return say("case.memory_limit", said=first_line(exc.said, 200), where=where(display_name, exc.line))
    if isinstance(exc, WorkerLost):
        return say("case.lost")
    if isinstance(exc, (ImportFailed, NotRun)):
        return say("case.not_run")
    if isinstance(exc, AssertionError):
        return failure_text(str(exc)) or say("case.mismatch")
    if isinstance(exc, pytest.fail.Exception):  # pytest.fail("...") in a test: its text is the message
        return failure_text(exc.msg or "") or say("case.mismatch")
    decoded = decode(str(exc))  # a test that raised something else with msg(...) still speaks both languages
    return decoded.map(shorten) if decoded is not None else Text.same(f"{type(exc).__name__}: {first_line(str(exc))}")


def failure_text(raw: str) -> Text:
    """A test's own failure text: a msg() encoding anywhere in it (pytest adds 'assert ...' lines after it,
    sometimes text before it) in both languages, else its first line, shortened, the same in both."""
    decoded = decode(raw)
    if decoded is not None:
        return decoded.map(shorten)
    lines = raw.strip().splitlines()
    return Text.same(shorten(lines[0])) if lines else Text()


def learner_failure(hint: object, exc: LearnerError, display_name: str) -> str:
    """A test's own hint (plain, msg()-encoded or Text), then what the learner's code raised and where, as one
    msg()-encoded string (so it can be raised as an AssertionError's message)."""
    text = probe_failure(hint, exc, display_name)
    return msg(text.zh, text.en)


def probe_failure(hint: object, exc: LearnerError, display_name: str, line: int | None = None) -> Text:
    """The hint, what the learner's code raised, and where: `line`, else the line the traceback named."""
    return say(
        "case.probe_raised",
        hint=as_text(hint),
        error=error_text(exc.type_name, exc.message),
        where=where(display_name, line or exc.learner_line),
    )


def error_text(type_name: str, message: str) -> Text:
    """error_line in both languages: the worker's refusals, written in English, read in Chinese on the zh side."""
    line = error_line(type_name, message)
    zh, en = MESSAGES["worker.refused"]
    return Text(zh=line.replace(en, zh), en=line)


def error_line(type_name: str, message: str) -> str:
    """'ValueError: what it said', or just the type when it said nothing."""
    kind, said = first_line(type_name, 100), first_line(message)
    return f"{kind}: {said}" if said else kind


def first_line(text: str, limit: int = 300) -> str:
    """An exception's first paragraph, shortened for one line of a report (see judge.report.textsafe.shorten)."""
    return shorten(str(text).strip().split("\n\n")[0], limit)
