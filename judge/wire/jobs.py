"""The payloads of the judge's two sandbox jobs, the checker and the worker, as they cross into the child.

A payload travels as plain data (JobSpec.payload) and is read back with from_wire in the child. The worker's
files are found in its job folder, which is its working directory wherever the job runs (a host scratch
folder, or a container's own copy of the inbox), unless a runner names a folder the job sees them in: no
runner rewrites a payload.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

SOLUTION_FILE = "solution.py"  # the learner's file, as a runner writes it for the worker
PROBES_FILE = "probes.py"  # the problem's tests/probes.py, copied beside it
STACK_MARGIN_S = 1.0  # how long before its time limit the worker writes its stack to stderr (judge.grading.stuck)


@dataclass(frozen=True)
class WorkerPayload:
    display_name: str  # the learner's file name, as tracebacks and messages show it
    files_at: str = ""  # the folder holding SOLUTION_FILE and PROBES_FILE as the job sees it; "": the job folder
    stack_after_s: float = 0.0  # write the stack to stderr after this long (0: never)
    full_table_check: bool = False  # at the session's end, compare every kernel of torch's with the zygote's (a Submit)

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> WorkerPayload:
        return cls(
            display_name=data["display_name"],
            files_at=data.get("files_at", ""),
            stack_after_s=float(data.get("stack_after_s", 0.0)),
            full_table_check=bool(data.get("full_table_check", False)),
        )

    def paths(self) -> tuple[str, str]:
        """(solution, probes) as absolute paths (the guard trusts code by the file name it was compiled under)."""
        folder = self.files_at or os.getcwd()
        return os.path.join(folder, SOLUTION_FILE), os.path.join(folder, PROBES_FILE)


@dataclass(frozen=True)
class CheckerPayload:
    deadline: float  # time.time() by which the worker must have answered
    meta: dict[str, Any]  # the problem's ProblemMeta, as JSON data
    display_name: str
    root: str  # the problem folder (pytest's rootdir)
    test_files: tuple[str, ...]
    run_tiers: tuple[str, ...]
    skip_tiers: tuple[str, ...] = ()
    source: str = ""  # the learner's file, read with ast by judge.problem.declarations (the checker never imports it)
    shard: tuple[int, ...] = (0, 1)  # (this pass's shard, shards): a Run split over pairs (judge.checker.shards)
    costs: dict[str, float] = field(default_factory=dict)  # case id -> seconds, from an earlier judgement

    def to_wire(self) -> dict[str, Any]:
        return {**asdict(self), **{name: list(getattr(self, name)) for name in TUPLES}}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> CheckerPayload:
        return cls(**{**data, **{name: tuple(data[name]) for name in TUPLES if name in data}})


TUPLES = ("test_files", "run_tiers", "skip_tiers", "shard")
