"""Grade a class: check each source, reuse cached reports, judge each distinct source once on a bounded pool."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from judge.batch.cache import ReportCache
from judge.batch.exercise import Exercise
from judge.batch.inputs import Entry
from judge.batch.rows import NO_OPERATORS_NOTE, UNCHANGED_NOTE, Row
from judge.errors import BadSubmission
from judge.problem.folders import Problem
from judge.report.i18n import Text
from judge.report.models import Report, Verdict, internal_error
from judge.source import check_source


class Interrupted(Exception):
    """Ctrl-C during a batch: carries the rows finished so far (each already in the cache)."""

    def __init__(self, rows: list[Row]):
        super().__init__(f"interrupted after {len(rows)} rows")
        self.rows = rows


class BatchGrader:
    """Turns entries into rows; on_row(row) is called in the calling thread as each row is ready."""

    def __init__(
        self,
        judge: Any,
        problem: Problem,
        cache: ReportCache | None,
        jobs: int,
        force: bool = False,
        on_row: Callable[[Row], None] = lambda row: None,
    ):
        self.judge, self.problem, self.cache = judge, problem, cache
        self.jobs, self.force, self.on_row = max(1, jobs), force, on_row
        self.limit = min(problem.meta.limits.source_kib << 10, judge.settings.max_source_bytes)
        self.exercise = Exercise.of(problem)

    def run(self, entries: list[Entry]) -> list[Row]:
        """A row per entry; Ctrl-C raises Interrupted with the rows finished so far."""
        rows: list[Row] = []
        try:
            self._run(entries, rows)
        except KeyboardInterrupt:
            raise Interrupted(rows) from None
        return rows

    def _run(self, entries: list[Entry], rows: list[Row]) -> None:
        todo: dict[str, list[Entry]] = {}  # sha256 -> the students who sent exactly these bytes
        sources: dict[str, str] = {}
        for entry in entries:
            sha = hashlib.sha256(entry.data).hexdigest() if entry.data is not None else ""
            rejected = self._rejection(entry, sha, sources)
            if rejected is not None:
                self._emit(rows, rejected)
            else:
                todo.setdefault(sha, []).append(entry)
        for sha in list(todo):
            report = None if self.force or self.cache is None else self.cache.get(sha)
            if report is not None:
                self._finish(rows, todo.pop(sha), sha, report, sources[sha], cached=True)
        self._judge_all(rows, todo, sources)

    def _rejection(self, entry: Entry, sha: str, sources: dict[str, str]) -> Row | None:
        if entry.data is None:
            return Row.rejected(
                entry.student, entry.origin, sha, Text.same(entry.reason), notes=entry.notes, **_about(entry)
            )
        try:
            sources[sha] = check_source(entry.data, self.limit)
        except BadSubmission as exc:
            reason = getattr(exc, "text", None) or Text.same(exc.message)
            return Row.rejected(entry.student, entry.origin, sha, reason, notes=entry.notes, **_about(entry))
        return None

    def _judge_all(self, rows: list[Row], todo: dict[str, list[Entry]], sources: dict[str, str]) -> None:
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="grade")
        try:
            running = {pool.submit(self._grade, sources[sha]): sha for sha in todo}
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    sha = running.pop(future)
                    report, notes = future.result()
                    if self.cache is not None:
                        self.cache.put(sha, report)
                    self._finish(rows, todo[sha], sha, report, sources[sha], notes=notes)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)  # judgements under way end when the zygotes close
            raise
        pool.shutdown(wait=True)

    def _grade(self, source: str) -> tuple[Report, list[str]]:
        """Judge once; a retryable fault of the judge is judged a second time, then kept as internal_error."""
        notes: list[str] = []
        for attempt in (1, 2):
            report = self._grade_once(source)
            fault = report.fault
            if report.verdict != Verdict.internal_error or fault is None or not fault.retryable or attempt == 2:
                return report, notes
            notes.append(f"judge fault ({fault.what}) on the first try; judged again")
        raise AssertionError("unreachable")

    def _grade_once(self, source: str) -> Report:
        try:
            report: Report = self.judge.grade(
                self.problem.id, source, mode="submit", display_name=self.problem.meta.solution_file
            )
            return report
        except Exception as exc:  # noqa: BLE001 - one broken judgement must never abort the class
            return internal_error(self.problem.id, "submit", f"{type(exc).__name__}: {exc}", what="batch")

    def _finish(
        self,
        rows: list[Row],
        entries: list[Entry],
        sha: str,
        report: Report,
        source: str,
        cached: bool = False,
        notes: list[str] | tuple[str, ...] = (),
    ) -> None:
        not_done = self.exercise.not_done(source)
        unchanged = not_done is not None
        said = [UNCHANGED_NOTE if not_done == "starter" else NO_OPERATORS_NOTE] if unchanged else []
        for entry in entries:
            same = [e.student for e in entries if e is not entry]
            extra = [f"identical to {', '.join(same)}: judged once"] if same else []
            row = Row.judged(
                entry.student,
                entry.origin,
                sha,
                report,
                cached=cached,
                notes=[*said, *entry.notes, *notes, *extra],
                **_about(entry),
            )
            if unchanged:  # the starter's operators as given (or none of them): the work was not done
                row.score = 0.0
            self._emit(rows, row)

    def _emit(self, rows: list[Row], row: Row) -> None:
        rows.append(row)
        self.on_row(row)


def _about(entry: Entry) -> dict[str, object]:
    """What the LMS's layout says of the submission, carried onto its row."""
    return {
        "name": entry.name,
        "layout": entry.layout,
        "submitted": entry.submitted,
        "submitted_from": entry.submitted_from,
        "late_marker": entry.late_marker,
        "attempts": list(entry.attempts),
        "told": list(entry.told),
    }
