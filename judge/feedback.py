"""What a problem's tests use to speak to the learner in both languages: msg() for failures, hint markers.

A test fails with ``assert ok, msg("中文说明", "English explanation")`` or
``pytest.fail(msg(...), pytrace=False)``; a hidden test declares what it checks with
``@pytest.mark.hint("反向：一维输入", "backward on a 1-D input")``. pytest turns assertion messages
into plain strings, so msg() encodes both languages into one line that the checker decodes.
"""

from __future__ import annotations

import re

from judge.i18n import Text

_OPEN, _SEP, _CLOSE = "\ue000", "\ue001", "\ue002"  # private-use characters: never in ordinary text
_ENCODED = re.compile(f"{_OPEN}(.*?){_SEP}(.*?){_CLOSE}", re.S)


def msg(zh: str, en: str) -> str:
    """A failure message in both languages, as one string that survives pytest's assertion rewriting."""
    return f"{_OPEN}{_flat(zh)}{_SEP}{_flat(en)}{_CLOSE}"


def decode(text: str) -> Text | None:
    """The bilingual message encoded somewhere in text by msg(), or None when it holds none."""
    match = _ENCODED.search(text or "")
    return Text(zh=match[1], en=match[2]) if match else None


def as_text(value) -> Text:
    """A msg()-encoded string, a Text, or a plain string (then the same in both languages)."""
    if isinstance(value, Text):
        return value
    return decode(str(value)) or Text.same(str(value))


def _flat(text: str) -> str:
    return " ".join(str(text).replace(_OPEN, "").replace(_SEP, "").replace(_CLOSE, "").split())
