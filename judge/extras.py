"""The optional parts of the install: which extra holds which packages, and the one message for a missing one.

`pip install -e .` installs what the learner's CLI and the browser page need. The queue and its PostgreSQL and Redis
stack (`judge worker`, `judge status`, PRACTICE_QUEUE_URL, /metrics) are the `scale` extra; the instructor's grading
(exports, workbook, similarity, Gradescope) is the `grade` extra; `test` pulls both.
"""

from __future__ import annotations

import importlib.util
import sys

from judge.errors import JudgeError
from judge.report.catalog import say

EXTRAS = {
    "scale": ("celery", "kombu", "redis", "psycopg", "prometheus_client"),
    "grade": ("copydetect", "openpyxl", "yaml", "fontTools"),
}


def _installed(name: str) -> bool:
    if name in sys.modules:  # imported already (find_spec refuses a module whose __spec__ is None, as kombu's)
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ValueError, ImportError):
        return True  # it is there, in some form find_spec cannot describe: let the import itself say more


def missing(extra: str) -> list[str]:
    """The packages of `extra` this install lacks (none: the extra is installed)."""
    return [name for name in EXTRAS[extra] if not _installed(name)]


def require(extra: str, what: str) -> None:
    """Refuse `what` (a command or a setting), naming the pip line, when the extra it needs is not installed."""
    lacking = missing(extra)
    if lacking:
        raise JudgeError(say("extras.missing", what=what, packages=", ".join(lacking), extra=extra))
