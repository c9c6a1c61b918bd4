"""Import the learner's file and describe failures in terms of the learner's own lines."""

from __future__ import annotations

import sys
import traceback
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the type checker only (judge.wire.protocol)
    from judge.wire.protocol import Raised


def load_module(name: str, path: str, display_name: str | None = None) -> types.ModuleType:
    """Execute a source file as module `name`; tracebacks name it `display_name`."""
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    code = compile(source, display_name or path, "exec", dont_inherit=True)
    module = types.ModuleType(name)
    module.__file__ = display_name or path
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


def learner_line(exc: BaseException, display_name: str) -> int | None:
    """The deepest line of the learner's file in the traceback (or the SyntaxError's line)."""
    if isinstance(exc, SyntaxError) and exc.filename == display_name:
        return exc.lineno
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == display_name:
            line = frame.lineno
    return line


def describe(exc: BaseException, display_name: str) -> Raised:
    message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    return {"type": type(exc).__name__, "message": message[:2000], "learner_line": learner_line(exc, display_name)}


def is_out_of_memory(exc: BaseException) -> bool:
    """torch reports a refused allocation as RuntimeError, Python as MemoryError."""
    return isinstance(exc, MemoryError) or (isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc))
