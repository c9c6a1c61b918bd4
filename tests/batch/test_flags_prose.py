"""Flags come from the syntax tree: comments and prose strings that merely mention gc, threads or /proc are honest."""

from __future__ import annotations

import pytest

from judge.flags import source_flags

HONEST = '''"""Free slots. Unlike gc.get_objects() or threading, this reads no /proc/self/maps: ctypes is not needed."""
# import gc  -- a note to myself: threading.Thread and sys._getframe are refused in the worker
import torch


def free_slots(used):
    """No /proc/self, no signal.signal, no subprocess here."""
    assert used.dim() == 1, "threading is not used; see /proc/self/status for why not"
    print("gc and ctypes are off limits")
    if used.numel() < 0:
        raise ValueError(f"/proc/{used.numel()} is not a path, threading neither")
    return torch.nonzero(~used).flatten()
'''


def test_comments_docstrings_and_messages_raise_no_flag():
    assert source_flags(HONEST) == []


@pytest.mark.parametrize(
    "source,flag",
    [
        ("import sys\nprint(getattr(sys, '_getframe')(1))", "frame-walking"),  # a call nested inside a print
        ("path = '/proc/self/mem'\nopen(path)", "os-fd"),  # a string the code uses
        ("open(f'/proc/{1}/maps')", "host-files"),
        ("import importlib\nimportlib.import_module('ctypes')", "ctypes"),
    ],
)
def test_strings_the_code_uses_still_count(source, flag):
    assert flag in source_flags(source)


def test_a_file_that_does_not_parse_is_still_scanned_as_text():
    assert "os-fd" in source_flags("def f(:\n    open('/proc/self/mem')\n")
