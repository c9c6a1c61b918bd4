"""Learner-derived text made safe to carry and to show: valid Unicode, no control or layout characters."""

import re
import unicodedata

# C0 controls except tab and newline, DEL, and C1 controls (which include CSI on some terminals).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Format characters (bidi overrides, zero-width joiners) and line/paragraph separators can rearrange
# or split what a terminal shows.
_LAYOUT = ("Cf", "Zl", "Zp")
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid(text: str) -> str:
    """Lone surrogates (which cannot be encoded) become U+FFFD."""
    return _SURROGATE.sub("\N{REPLACEMENT CHARACTER}", text)


def plain(text: str) -> str:
    """Text for a terminal line: valid, and with control and layout characters replaced."""
    text = _CONTROL.sub("\N{REPLACEMENT CHARACTER}", valid(text))
    return "".join("\N{REPLACEMENT CHARACTER}" if unicodedata.category(ch) in _LAYOUT else ch for ch in text)
