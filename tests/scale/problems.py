"""The judge as the queue's processes see it outside a worker: a folder's problems and their limits, no zygotes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.problem.folders import ProblemSet


class Problems:
    def __init__(self, folder: Path):
        self.problem_set = ProblemSet(folder)

    def problems(self) -> list[Any]:
        return self.problem_set.all()

    def problem(self, problem_id: str) -> Any:
        return self.problem_set.get(problem_id)
