"""practice-judge core: problems, grading, verdicts and reports (no web framework, no docker)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.report.models import Report, Verdict
    from judge.service import Judge

__all__ = ["Judge", "Report", "Verdict"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: a front end that only prints a report (the CLI talking to its warm judge) never
    # pays for judge.service and the sandbox behind it.
    if name == "Judge":
        from judge.service import Judge  # noqa: PLC0415

        return Judge
    if name in ("Report", "Verdict"):
        from judge.report import models  # noqa: PLC0415

        return getattr(models, name)
    raise AttributeError(f"module 'judge' has no attribute {name!r}")
