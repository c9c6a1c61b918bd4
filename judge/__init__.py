"""practice-judge core: problems, grading, verdicts and reports (no web framework, no docker).

A submission's way through the packages: judge.source reads it, judge.problem loads its exercise, a
judge.grading.judgement.Judgement names both, judge.grading runs its passes (judge.runners start the sandboxed
judge.worker, judge.checker runs the tests; both speak judge.wire) and decides a judge.report.models.Report.
judge.service.Judge is the one entry; the front ends (judge.cli, judge.batch, judge.queue, web) call it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.grading.judgement import Judgement
    from judge.report.models import Report, Verdict
    from judge.service import Judge

__all__ = ["Judge", "Judgement", "Report", "Verdict"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: a front end that only prints a report (the CLI talking to its warm judge) never
    # pays for judge.service and the sandbox behind it.
    if name == "Judge":
        from judge.service import Judge  # noqa: PLC0415

        return Judge
    if name == "Judgement":
        from judge.grading.judgement import Judgement  # noqa: PLC0415

        return Judgement
    if name in ("Report", "Verdict"):
        from judge.report import models  # noqa: PLC0415

        return getattr(models, name)
    raise AttributeError(f"module 'judge' has no attribute {name!r}")
