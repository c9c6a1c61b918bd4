"""Validate a submitted file before anything runs it: size, encoding, emptiness."""

from __future__ import annotations

from judge.errors import BadSubmission


def check_source(source: str | bytes, max_bytes: int) -> str:
    data = source.encode("utf-8", errors="surrogatepass") if isinstance(source, str) else source
    if len(data) > max_bytes:
        raise BadSubmission(f"the file is {len(data)} bytes; the limit is {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadSubmission(f"the file is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if not text.strip():
        raise BadSubmission("the file is empty; write your solution first")
    if "\x00" in text:
        raise BadSubmission("the file contains NUL bytes; it is not Python source")
    return text
