"""Runners: where the learner's worker runs (a local zygote, a container), behind one small interface."""

from judge.runners.base import Runner, RunnerPolicy, WorkerLaunch, WorkerRun

__all__ = ["Runner", "RunnerPolicy", "WorkerLaunch", "WorkerRun"]
