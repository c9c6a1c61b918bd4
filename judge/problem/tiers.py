"""Names of a problem's test tiers (CPU, GPU) and why a tier did not run: shared by the runners and the checker."""

from judge.report.feedback import said

CPU, GPU = "cpu", "gpu"
TIERS = (CPU, GPU)
RAN, SKIPPED = "ran", "skipped"
NEEDS_GPU = said("tiers.needs_gpu")
