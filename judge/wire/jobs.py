"""The payloads of the judge's two sandbox jobs, the checker and the worker, as they cross into the child.

A payload travels as plain data (JobSpec.payload) and is read back with from_wire in the child. The worker's
files are found in its job folder, which is its working directory wherever the job runs (a host scratch
folder, or a container's own copy of the inbox), unless a runner names a folder the job sees them in: no
runner rewrites a payload.
"""

from __future__ import annotations

import json
import os
import socket
import struct
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
    # A parked worker (judge.grading.parking): started with the probes only; the learner's file and its name come
    # later over the channel, as a ParkedWork, before the guard is armed.
    parked: bool = False

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> WorkerPayload:
        return cls(
            display_name=data["display_name"],
            files_at=data.get("files_at", ""),
            stack_after_s=float(data.get("stack_after_s", 0.0)),
            full_table_check=bool(data.get("full_table_check", False)),
            parked=bool(data.get("parked", False)),
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
    # A parked checker (judge.grading.parking): it collects its tests, says so (PARKED_LINE), then reads its
    # judgement's ParkedWork from the judge; deadline, display_name, source, shard and costs come from there.
    parked: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {**asdict(self), **{name: list(getattr(self, name)) for name in TUPLES}}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> CheckerPayload:
        return cls(**{**data, **{name: tuple(data[name]) for name in TUPLES if name in data}})


TUPLES = ("test_files", "run_tiers", "skip_tiers", "shard")


PARKED_LINE = b'{"type": "parked"}\n'  # a parked checker's first bytes on its events socket: collected, waiting
WORK_HEADER = struct.Struct("!Q")  # the length of the ParkedWork's JSON that follows
MAX_WORK = 16 << 20  # a learner's file is at most a few MiB (Settings.max_source_bytes), the costs beside it


@dataclass(frozen=True)
class ParkedWork:
    """What a parked pair is given by the judge (to the checker, over its events socket): its judgement's part."""

    deadline: float  # CheckerPayload.deadline
    display_name: str
    source: str
    shard: tuple[int, ...]
    costs: dict[str, float]

    def to_wire(self) -> dict[str, Any]:
        return {**asdict(self), "shard": list(self.shard)}

    def frame(self) -> bytes:
        """The work as the judge sends it (work_frame)."""
        return work_frame(self.to_wire())

    @classmethod
    def read(cls, sock: socket.socket) -> ParkedWork:
        """The work from the judge's frame on `sock`; EOFError if the judge closes it first."""
        return cls.from_wire(read_work(sock))

    @classmethod
    def from_wire(cls, data: Any) -> ParkedWork:
        """The work as the checker reads it (plain data from the judge, checked for its types)."""
        if type(data) is not dict:
            raise ValueError("a parked checker's work is not a mapping")
        work = cls(
            deadline=float(data["deadline"]),
            display_name=str(data["display_name"]),
            source=str(data["source"]),
            shard=tuple(int(k) for k in data["shard"]),
            costs={str(case): float(seconds) for case, seconds in dict(data["costs"]).items()},
        )
        return work

    def for_worker(self) -> bytes:
        """The frame the checker hands its parked worker (judge.worker.main._await_work): the file and its name."""
        return work_frame({"display_name": self.display_name, "source": self.source})


def work_frame(data: dict[str, Any]) -> bytes:
    """A parked job's work as it travels: its JSON's length, then the JSON (plain json: a parked worker reads it
    after its guard's snapshot, where nothing may run that has not run before; torch's decoder is not used)."""
    body = json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return WORK_HEADER.pack(len(body)) + body


def read_work(sock: socket.socket) -> Any:
    """The JSON of a work frame on `sock`; EOFError if its sender closes first, ValueError for one over MAX_WORK."""
    head = sock.recv(WORK_HEADER.size, socket.MSG_WAITALL)
    if len(head) < WORK_HEADER.size:
        raise EOFError("the parked job's work never came")
    (size,) = WORK_HEADER.unpack(head)
    if size > MAX_WORK:
        raise ValueError(f"a {size}-byte work frame (cap {MAX_WORK})")
    body = sock.recv(size, socket.MSG_WAITALL) if size else b""
    if len(body) < size:
        raise EOFError("the parked job's work never came")
    return json.loads(body.decode("utf-8", "surrogatepass"))
