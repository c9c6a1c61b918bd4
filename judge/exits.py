"""The exit statuses of every `judge` command and of practice/judge.py, in one table."""

from __future__ import annotations

OK = 0  # accepted; a command that did all its work
NOT_ACCEPTED = 1  # a verdict other than accepted; batch: a judgement the judge itself could not finish
USAGE = 2  # a bad command line, an unknown exercise, a file that cannot be read
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
