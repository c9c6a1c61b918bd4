"""What one judgement judges and how (Judgement), and what runs it (Runtime): the two objects every pass reads.

A front end (the CLI, the warm local judge, the web service, a queue worker, batch grading) makes a Judgement
through one constructor, `Judge.judgement()` (`Judgement.of` here), which checks the request: a known problem,
a mode, a source as Python reads it. From then on nothing about the submission travels beside it: the passes,
the shards of a split Run and the trace pass all take the Judgement. The Runtime is the Judge's for one call:
its runners, its checker zygote, its settings, the caller's cancel and the costs that balance a split.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, get_args

from judge.errors import JudgeError
from judge.problem.folders import Problem
from judge.report.catalog import say
from judge.report.i18n import Lang
from judge.report.models import Limits, Mode
from judge.runners import Runner
from judge.settings import Settings
from judge.source import check_source
from sandbox import ZygoteClient

if TYPE_CHECKING:  # the parking imports the pairs, which import this module
    from judge.grading.parking import Parking

WHOLE = (0, 1)  # the shard of a judgement that is not split: the first of one


@dataclass(frozen=True)
class Judgement:
    """One submission of one problem, checked, and how it is judged."""

    problem: Problem
    source: str  # as Python reads the file (judge.source.check_source): the worker imports exactly this
    mode: Mode  # "run": the public tests; "submit": the hidden ones too
    display_name: str  # the learner's file name, as tracebacks and messages show it
    lang: Lang  # the reader's language, for front ends that word as they go; a report holds both
    limits: Limits  # the problem's (problem.toml's [limits])
    shard: tuple[int, int] = WHOLE  # (this pass's shard, shards) of a Run split over pairs (judge.checker.shards)

    @classmethod
    def of(
        cls,
        problem: Problem,
        source_code: str | bytes,
        mode: Mode = "submit",
        display_name: str | None = None,
        lang: Lang = "zh",
        max_source_bytes: int | None = None,
    ) -> Judgement:
        """The judgement of `source_code` on `problem`, or JudgeError (in both languages) saying why none can be:
        a mode that is not one, a file Python would not read, one over the problem's (or the caller's) size."""
        if mode not in get_args(Mode):  # callers outside the type checker's sight (a request, a command line)
            raise JudgeError(say("usage.bad_mode", mode=repr(mode)))
        limit = problem.meta.limits.source_kib << 10
        source = check_source(source_code, min(limit, max_source_bytes) if max_source_bytes else limit)
        return cls(
            problem=problem,
            source=source,
            mode=mode,
            display_name=display_name or problem.meta.solution_file,
            lang=lang,
            limits=problem.meta.limits,
        )

    def part(self, k: int, shards: int) -> Judgement:
        """Shard k of `shards` of this judgement (its own checker keeps those cases)."""
        return replace(self, shard=(k, shards))


def _no_fault(key: str) -> None:
    """A GPU runner's host fault with nobody to tell (judge.grading.hostfault)."""


@dataclass(frozen=True)
class Runtime:
    """What runs a judgement's passes: the Judge's warm parts, lent for one call."""

    runners: Callable[[str], Runner]  # the warm runner by the tier plan's key (judge.runners.plan)
    checker_zygote: ZygoteClient  # the trusted checker's warm parent
    settings: Settings
    cancel: threading.Event | None = None  # set by a front end (the page's Cancel): the pass's jobs die at once
    on_runner_fault: Callable[[str], None] = _no_fault  # a GPU runner failed for a reason of the host: drop it
    shards: int = 1  # pairs a Run alone on the judge is split over
    costs: dict[str, float] = field(default_factory=dict)  # case id -> seconds, from earlier judgements
    parking: Parking | None = None  # the judge's parked pairs (judge.grading.parking): None, every pass starts its own

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()
