"""The optional parts of the install: which extra holds which packages, and the one message for a missing one.

`pip install -e .` installs what the learner's CLI and the browser page need. The queue and its PostgreSQL and Redis
stack (`judge worker`, `judge status`, PRACTICE_QUEUE_URL, /metrics) are the `scale` extra; the instructor's grading
(exports, workbook, similarity, Gradescope) is the `grade` extra; `test` pulls both.
"""

from __future__ import annotations

import importlib.util

from judge.catalog import say
from judge.errors import JudgeError

EXTRAS = {
    "scale": ("celery", "kombu", "redis", "psycopg", "prometheus_client"),
    "grade": ("copydetect", "openpyxl", "yaml"),
}


def missing(extra: str) -> list[str]:
    """The packages of `extra` this install lacks (none: the extra is installed)."""
    return [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]


def require(extra: str, what: str) -> None:
    """Refuse `what` (a command or a setting), naming the pip line, when the extra it needs is not installed."""
    lacking = missing(extra)
    if lacking:
        raise JudgeError(say("extras.missing", what=what, packages=", ".join(lacking), extra=extra))
