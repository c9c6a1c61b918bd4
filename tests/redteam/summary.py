"""Counts the red-team attacks that ran and those skipped, and states both at the end of the session (and in
CI's step summary), so that a green run with most attacks skipped cannot pass unnoticed.

The hooks are registered by the root tests/conftest.py: under pytest-xdist only the controller prints the
summary, and it loads the root conftest but not this folder's (it never collects)."""

from __future__ import annotations

import os

_COUNTS = {"ran": 0, "skipped": 0, "failed": 0}
ATTACK_TEST = "test_attack_is_contained"


def pytest_runtest_logreport(report):
    if ATTACK_TEST not in report.nodeid:
        return
    if report.skipped and report.when in ("setup", "call"):
        _COUNTS["skipped"] += 1
    elif report.when == "call":
        _COUNTS["ran"] += 1
        _COUNTS["failed"] += report.failed
    elif report.failed:  # an error in setup: the attack did not run, and the session fails anyway
        _COUNTS["failed"] += 1


def summary_line() -> str:
    return f"red-team: {_COUNTS['ran']} attacks ran, {_COUNTS['skipped']} skipped" + (
        f", {_COUNTS['failed']} failed" if _COUNTS["failed"] else ""
    )


def pytest_terminal_summary(terminalreporter):
    if not any(_COUNTS.values()):
        return
    line = summary_line()
    terminalreporter.write_sep("-", line)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as fh:
            fh.write(f"{line}\n")
