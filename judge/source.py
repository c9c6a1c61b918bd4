"""Read a submitted file as Python reads it (BOM, PEP 263 coding line, any newline) and validate it before it runs."""

from __future__ import annotations

import io
import re
import tokenize

from judge.errors import BadSubmission
from judge.report.catalog import say
from judge.report.i18n import Text

_SURROGATE = re.compile("[\ud800-\udfff]")
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)


def check_source(source: str | bytes, max_bytes: int) -> str:
    """The submission as text, or BadSubmission saying (in both languages) why nothing will be judged.

    Bytes are decoded by the interpreter's own rules (tokenize.detect_encoding), so a file that `python file.py`
    runs is judged, and one it refuses is refused with what is wrong and how to save the file as UTF-8."""
    if isinstance(source, str):
        lone = _SURROGATE.search(source)
        if lone:  # not encodable: a caller decoded bytes with surrogateescape, or built the str by hand
            raise BadSubmission(say("source.surrogate", at=lone.start(), code=ord(lone[0])))
        size, text = len(source.encode("utf-8")), source.removeprefix("\ufeff")
    else:
        data = bytes(source)
        size = len(data)
        if size <= max_bytes:
            text = python_text(data)
    if size > max_bytes:  # bytes, not characters: a Chinese comment is three bytes a character
        raise BadSubmission(say("source.too_big", size=size, limit=max_bytes))
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as Python's import reads a file
    if not text.strip():
        raise BadSubmission(say("source.empty"))
    if "\x00" in text:
        raise BadSubmission(say("source.nul"))
    return text


def python_text(data: bytes) -> str:
    """The file's text in the encoding Python would use to run it (UTF-8 unless a BOM or coding line says)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise BadSubmission(_refusal(data, str(exc))) from None
    try:
        return data.decode(encoding)  # "utf-8-sig" (a BOM) drops the mark, as Python does
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        declared = _declared(data)
        if declared is None:
            raise BadSubmission(_not_utf8(exc.start, line)) from None
        raise BadSubmission(say("source.not_declared", encoding=declared, at=exc.start + 1, line=line)) from None
    except LookupError:  # detect_encoding checked the name; a codec that vanished since is the same refusal
        raise BadSubmission(say("source.unknown_encoding", encoding=_declared(data) or "?")) from None


def _refusal(data: bytes, problem: str) -> Text:
    """detect_encoding's SyntaxError, named for the learner: unknown codec, BOM against the coding line, not UTF-8."""
    declared = _declared(data) or "?"
    if problem.startswith("unknown encoding"):
        return say("source.unknown_encoding", encoding=declared)
    if problem.startswith("encoding problem") and data.startswith(b"\xef\xbb\xbf"):
        return say("source.bom_conflict", encoding=declared)
    try:  # "invalid or missing encoding declaration": one of the first two lines is not UTF-8
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _not_utf8(exc.start, data[: exc.start].count(b"\n") + 1)
    return say("source.unknown_encoding", encoding=declared)


def _not_utf8(offset: int, line: int) -> Text:
    return say("source.not_utf8", at=offset + 1, line=line, save=say("source.save_utf8"))


def _declared(data: bytes) -> str | None:
    """The encoding a PEP 263 line among the first two names, as written."""
    head = b"\n".join(data.removeprefix(b"\xef\xbb\xbf").splitlines()[:2])
    match = _COOKIE.search(head)
    return match[1].decode("ascii", "replace") if match else None
