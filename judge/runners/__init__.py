"""Where the learner's worker runs (a local zygote, a container, a GPU); imports problem, report, wire, sandbox."""

from judge.runners.base import Runner, RunnerPolicy, WorkerLaunch, WorkerRun

__all__ = ["Runner", "RunnerPolicy", "WorkerLaunch", "WorkerRun"]
