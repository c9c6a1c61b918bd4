"""Where the learner's code was when the time limit hit: read from the stack the worker printed just before it.

The worker arms faulthandler to write every thread's stack to its stderr shortly before its limit
(judge.worker.main); the sandbox keeps it with the worker's output. Output is the worker's word, so only a
line number and a function name are taken from it, and only frames of the learner's own file; the judge shows
them for a public case only (a hidden case's line could carry its input out). The block is taken out of the
output the learner is shown: it is the judge's, not theirs.
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


def find_stuck(output: str, display_name: str) -> tuple[Stuck | None, str]:
    """The innermost frame of the learner's file (compiled under `display_name`) in the last stack block (most
    recent call first), and the output without that block; (None, output) when there is none."""
    blocks = list(_BLOCK.finditer(output))
    if not blocks:
        return None, output
    block = blocks[-1]
    rest = output[: block.start()] + output[block.end() :]
    for frame in _FRAME.finditer(block.group(0)):
        if frame["file"] == display_name or PurePosixPath(frame["file"]).name == SOLUTION_FILE:
            return Stuck(line=int(frame["line"]), function=frame["name"]), rest
    return None, rest
