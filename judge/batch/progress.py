"""Progress of a batch: a rich bar with counts per verdict and an ETA on a terminal, plain lines when piped."""

from __future__ import annotations

import sys
from collections import Counter
from types import TracebackType
from typing import TextIO

from judge.batch.rows import Row
from judge.report.textsafe import plain

# Short names for the live counts, so bar, counts and ETA fit an 80-column terminal.
SHORT = {
    "accepted": "AC",
    "wrong_answer": "WA",
    "compile_error": "CE",
    "runtime_error": "RE",
    "time_limit_exceeded": "TLE",
    "memory_limit_exceeded": "MLE",
    "output_limit_exceeded": "OLE",
    "internal_error": "IE",
    "rejected": "REJ",
}


class PlainProgress:
    """One line per student, flushed: readable in a CI log or a pipe."""

    def __init__(self, total: int, stream: TextIO | None = None):
        self.total, self.done, self.stream = total, 0, stream or sys.stderr
        self.counts: Counter[str] = Counter()

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        summary = ", ".join(f"{v} {n}" for v, n in sorted(self.counts.items()))
        print(f"graded {self.done}/{self.total}: {summary}", file=self.stream, flush=True)

    def __call__(self, row: Row) -> None:
        self.done += 1
        self.counts[row.verdict] += 1
        how = " (cached)" if row.cached else f" in {row.duration_s:.1f} s" if row.report else ""
        print(f"[{self.done}/{self.total}] {plain(row.student)}: {row.verdict}{how}", file=self.stream, flush=True)


class RichProgress(PlainProgress):
    """A live bar: done/total, per-verdict counts, elapsed and remaining time."""

    def __enter__(self) -> RichProgress:
        from rich.console import Console  # noqa: PLC0415
        from rich.progress import (  # noqa: PLC0415
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("grading"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[counts]}"),
            console=Console(stderr=True, markup=False, highlight=False),
            transient=False,
        )
        self.bar.__enter__()
        self.task = self.bar.add_task("grading", total=self.total, counts="")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.bar.__exit__(kind, value, trace)

    def __call__(self, row: Row) -> None:
        self.done += 1
        self.counts[row.verdict] += 1
        counts = " ".join(f"{SHORT.get(v, v)} {n}" for v, n in sorted(self.counts.items()))
        self.bar.update(self.task, advance=1, counts=counts)


def progress_for(total: int, stream: TextIO | None = None) -> PlainProgress | RichProgress:
    stream = stream or sys.stderr
    return RichProgress(total, stream) if stream.isatty() else PlainProgress(total, stream)
