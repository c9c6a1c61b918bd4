"""practice-judge core: problems, grading, verdicts and reports (no web framework, no docker)."""

from judge.models import Report, Verdict
from judge.service import Judge

__all__ = ["Judge", "Report", "Verdict"]
