"""Where the learner's code was when the time limit hit: read from the stack the worker wrote just before it.

The worker arms faulthandler to write every thread's stack shortly before its limit (judge.worker.main), on a
descriptor of its own that the sandbox reads when the worker ends (JobFacts.stack) and that the guard's fence seals
from the learner's code: nothing the learner prints can pass for it. Only a line number and a function name are
taken from it, and only frames of the learner's own file; the judge shows them for a public case only (a hidden
case's line could carry its input out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from judge.wire.jobs import SOLUTION_FILE

# faulthandler's block: `Timeout (0:00:05)!`, then per thread `Thread 0x… (most recent call first):` and frames
# `  File "/path/solution.py", line 12 in kv_write`.
_BLOCK = re.compile(
    r"Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!\n(?:(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):\n"
    r'(?:  File "[^"\n]{1,4096}", line \d{1,7} in [^\n]{1,200}\n|  \.\.\.\n|  <no Python frame>\n)*\n?)+'
)
_FRAME = re.compile(r'^  File "(?P<file>[^"\n]+)", line (?P<line>\d+) in (?P<name>[A-Za-z_<>][\w<>]{0,99})$', re.M)


@dataclass(frozen=True)
class Stuck:
    line: int
    function: str


def find_stuck(stack: str, display_name: str) -> Stuck | None:
    """The innermost frame of the learner's file (compiled under `display_name`) in the first stack block (most
    recent call first: the watchdog writes one), or None when there is none."""
    block = _BLOCK.search(stack)
    if block is None:
        return None
    for frame in _FRAME.finditer(block.group(0)):
        if frame["file"] == display_name or PurePosixPath(frame["file"]).name == SOLUTION_FILE:
            return Stuck(line=int(frame["line"]), function=frame["name"])
    return None
