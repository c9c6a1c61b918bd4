"""Process creation and isolation backends; knows nothing of problems or verdicts."""

from sandbox.base import EXIT_LAYER, EXIT_MEMORY, JobFacts, JobSpec
from sandbox.client import Job, ZygoteClient

__all__ = ["EXIT_LAYER", "EXIT_MEMORY", "Job", "JobFacts", "JobSpec", "ZygoteClient"]
