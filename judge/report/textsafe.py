"""Learner-derived text made safe to carry and to show: valid Unicode, no control or layout characters, no host path."""

import functools
import re
import sys
import sysconfig
import unicodedata
from pathlib import Path

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


# torch's own noise in learner-facing text: where a custom op's kernel lives, pointers to its issue tracker and
# docs, "scroll up" notes, and stack dumps. None of it helps a learner find their mistake.
_NOISE = [
    re.compile(p, re.I)
    for p in (
        r"\s*\(with implementation in <module [^>]*>\)",
        r"\s*\(scroll up for (?:the )?stack trace\)",
        r"\s*(?:Please|For more information,?|For more details,?|See)\s[^.!?]*https?://\S+[^.!?]*[.!?]?",
        r"\s*https?://\S+",
        r"Dynamo failed to run FX node with fake tensors: call_function .*?\): got ",  # the node dump before the cause
    )
]
_STACK_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"|During handling of|The above exception"
    r"|from user code:|Set TORCH_LOGS|Developer debug context|While executing %"
    r"|\^+\s*$|~+\s*$)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")


# Where the judge is installed, as it shows in a warning's file name, a traceback or a module's __file__ that the
# learner's code prints: never shown to a learner (or a student, in batch feedback). Any site-packages or
# lib/pythonX.Y folder (a container's included), and this host's interpreter and checkout by their own paths.
_SITE = re.compile(r"(?:/[^\s\"'<>:]+)*/(?:site|dist)-packages(?=/|\b)")
_STDLIB = re.compile(r"(?:/[^\s\"'<>:]+)*/lib/python3\.\d+(?=/|\b)")


@functools.cache
def _host_prefixes() -> tuple[tuple[str, str], ...]:
    paths = sysconfig.get_paths()
    named = {
        paths.get("purelib"): "<site-packages>",
        paths.get("platlib"): "<site-packages>",
        paths.get("stdlib"): "<python>",
        paths.get("platstdlib"): "<python>",
        str(Path(__file__).resolve().parents[2]): "<judge>",
        sys.prefix: "<python>",
        sys.base_prefix: "<python>",
        sys.exec_prefix: "<python>",
    }
    found = [(str(path), name) for path, name in named.items() if path and len(str(path)) > 1]
    return tuple(sorted(found, key=lambda item: -len(item[0])))


def hide_paths(text: str) -> str:
    """Text with the paths of the judge's installation replaced by <judge>, <python>, <site-packages>."""
    for prefix, name in _host_prefixes():
        text = text.replace(prefix, name)
    return _STDLIB.sub("<python>", _SITE.sub("<site-packages>", text))


def shorten(text: str, limit: int = 300) -> str:
    """Learner text kept to about `limit` characters: torch's noise, stack dumps and host paths stripped, cut only
    at sentence boundaries, the first sentence always whole (within a hard cap of 4 x limit, then at a word
    boundary)."""
    lines = [line.strip() for line in hide_paths(str(text)).splitlines()]
    lines = [line for line in _until_stack(lines) if line]
    flat = " ".join(lines)
    for noise in _NOISE:
        flat = noise.sub("", flat)
    sentences = [s for s in _SENTENCE_END.split(flat.strip()) if s]
    if not sentences:
        return ""
    kept = sentences[0]
    for sentence in sentences[1:]:
        if len(kept) + 1 + len(sentence) > limit:
            break
        kept += ("" if kept.endswith(("。", "！", "？", "；")) else " ") + sentence
    return _cut_at_word(kept, 4 * limit)


def _until_stack(lines: list[str]) -> list[str]:
    """The lines before the first line of a stack dump (a traceback a probe passed on)."""
    for i, line in enumerate(lines):
        if _STACK_LINE.match(line):
            return lines[:i]
    return lines


def _cut_at_word(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    cut = text[:cap].rsplit(" ", 1)[0] if " " in text[:cap] else text[:cap]
    return cut.rstrip(",;:") + " …"
