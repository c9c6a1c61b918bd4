"""Validate a submitted file before anything runs it: size in bytes, encoding, emptiness."""

from __future__ import annotations

import re

from judge.catalog import say
from judge.errors import BadSubmission

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_source(source: str | bytes, max_bytes: int) -> str:
    """The submission as text, or BadSubmission saying (in both languages) why nothing will be judged."""
    if isinstance(source, str):
        lone = _SURROGATE.search(source)
        if lone:  # not encodable: a caller decoded bytes with surrogateescape, or built the str by hand
            raise BadSubmission(say("source.surrogate", at=lone.start(), code=ord(lone[0])))
        data = source.encode("utf-8")
    else:
        data = bytes(source)
    if len(data) > max_bytes:  # bytes, not characters: a Chinese comment is three bytes a character
        raise BadSubmission(say("source.too_big", size=len(data), limit=max_bytes))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadSubmission(say("source.not_utf8", at=exc.start)) from None
    if not text.strip():
        raise BadSubmission(say("source.empty"))
    if "\x00" in text:
        raise BadSubmission(say("source.nul"))
    return text
