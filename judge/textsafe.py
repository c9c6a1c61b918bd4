"""Learner-derived text made safe for a terminal: no escape sequences, no control characters."""

import re

# C0 controls except tab and newline, DEL, and C1 controls (which include CSI on some terminals).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)
