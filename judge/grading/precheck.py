"""Before any worker starts: compile the learner's file, and describe an import failure as one block.

compile() runs in the judge's own process and imports nothing (no torch), so a syntax error is answered
at once; it only parses, never executes, the learner's code. A pathological file (deep nesting, a huge
literal) makes compile() raise rather than crash, and that becomes a compile error like any other.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import pkgutil
import re
import warnings
from dataclasses import dataclass

from judge.report.catalog import say
from judge.report.events import Collected, Done, EventSink
from judge.report.i18n import Text
from judge.report.models import Mode, Report, Verdict, no_case_ran
from judge.report.textsafe import plain, shorten

WIDTH = 100  # a longer source line is shown as a window around the error


@dataclass(frozen=True)
class NotCompiling:
    message: Text  # one block: the error and where, the line with a caret, a hint
    line: int | None  # the learner's line the error points at


def syntax_error(source: str, display_name: str) -> Text | None:
    """The one-block message of why `source` does not compile, or None when it compiles."""
    failure = compile_failure(source, display_name)
    return failure.message if failure is not None else None


def compile_failure(source: str, display_name: str) -> NotCompiling | None:
    """Why `source` does not compile, or None when it compiles."""
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like: the worker's business, not ours
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            compile(source, display_name, "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError included
        kind, line = type(exc).__name__, exc.lineno if exc.filename == display_name else None
        where = say("where", file=display_name, line=line) if line else ""
        headline = say("import.failed", error=f"{kind}: {plain(shorten(str(exc.msg)))}", where=where)
        block = import_block(headline, kind, line, source, exc.offset, getattr(exc, "end_offset", None))
        return NotCompiling(block, line)
    except (RecursionError, MemoryError, OverflowError, ValueError) as exc:
        return NotCompiling(
            say("import.uncompilable", what=type(exc).__name__) + "\n" + say("import.hint.complex"), None
        )
    return None


def import_block(
    headline: Text,
    kind: str,
    line: int | None,
    source: str,
    offset: int | None = None,
    end_offset: int | None = None,
    message: str = "",
) -> Text:
    """The error with its file and line (headline), the offending source line with a caret under it, and a
    one-line hint chosen by the error's kind (and, for a module that is not there, by its name)."""
    shown = _caret(source, line, offset, end_offset)
    block = headline + ("\n" + shown if shown else "")
    return block + "\n" + _hint(kind, message)


_NO_MODULE = re.compile(r"No module named '([A-Za-z0-9_.]+)'")


def _hint(kind: str, message: str = "") -> Text:
    if kind in ("SyntaxError", "IndentationError", "TabError"):
        return say("import.hint.syntax")
    if kind in ("ModuleNotFoundError", "ImportError"):
        return _module_hint(message)
    return say("import.hint.runtime")


def _module_hint(message: str) -> Text:
    """A misspelled submodule of a package the judge has (torch.nn.functionl): the closest real name; a module of
    the learner's own (a helper file beside the solution): one file is judged, so put it there; else what is offered."""
    found = _NO_MODULE.search(message)
    if found is None:
        return say("import.hint.module")
    name = found[1]
    close = closest_module(name)
    if close is not None:
        return say("import.hint.did_you_mean", name=name, close=close)
    top = name.split(".")[0]
    if "." not in name and importlib.util.find_spec(top) is None and top not in OFFERED:
        return say("import.hint.one_file", name=name)
    return say("import.hint.module")


OFFERED = ("torch", "numpy", "triton")


def closest_module(name: str) -> str | None:
    """For `a.b.c` that does not exist under an installed package `a`: the closest existing module name, found on
    disk (nothing is imported: the judge's own process never imports torch on this path), or None."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] not in OFFERED:
        return None
    spec = importlib.util.find_spec(parts[0])  # a top-level lookup: imports nothing
    if spec is None or not spec.submodule_search_locations:
        return None
    paths, known = list(spec.submodule_search_locations), [parts[0]]
    for part in parts[1:]:
        names = {m.name: m.ispkg for m in pkgutil.iter_modules(paths) if not m.name.startswith("__")}
        if part in names:
            known.append(part)
            paths = [os.path.join(p, part) for p in paths]
            continue
        match = difflib.get_close_matches(part, list(names), n=1, cutoff=0.75)
        return ".".join([*known, match[0]]) if match else None
    return None


def _caret(source: str, line: int | None, offset: int | None, end_offset: int | None) -> str:
    """'    <the line>' and '    <spaces>^^^' under the error's columns (the whole line when none is known)."""
    lines = source.splitlines()
    if not line or not 1 <= line <= len(lines):
        return ""
    raw = lines[line - 1].expandtabs(4)
    text = raw.lstrip()
    indent = len(raw) - len(text)
    if offset and offset > 0:
        start = max(0, offset - 1 - indent)
        end = max(start + 1, (end_offset - 1 - indent) if end_offset and end_offset > offset else start + 1)
    else:
        start, end = 0, len(text.rstrip()) or 1
    if len(text) > WIDTH:  # a window around the caret, so a 10 000-character line stays one line
        left = max(0, min(start - WIDTH // 2, len(text) - WIDTH))
        text, start, end = text[left : left + WIDTH], start - left, min(end - left, WIDTH)
    end = min(max(end, start + 1), max(len(text), start + 1))
    return f"    {plain(text.rstrip())}\n    {' ' * start}{'^' * (end - start)}"


def not_compiled(problem_id: str, mode: Mode, failure: NotCompiling, on_event: EventSink | None) -> Report:
    """The report of a file that does not compile: compile_error, and no test ran (none was collected)."""
    report = no_case_ran(problem_id, Verdict.compile_error, mode, failure.message, error_line=failure.line)
    if on_event is not None:
        on_event(Collected(total=0))
        on_event(Done(verdict=report.verdict))
    return report
