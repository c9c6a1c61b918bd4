"""`judge grade PROBLEM SUBMISSIONS --out DIR`: discover, judge on a pool, write every output, report."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from judge.batch.cache import ReportCache
from judge.batch.inputs import Entry, discover
from judge.batch.outputs import write_outputs
from judge.batch.progress import progress_for
from judge.batch.rows import Row
from judge.batch.run import BatchGrader, Interrupted
from judge.settings import Settings

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
CACHE = Path(".cache") / "reports"


def grade_class(
    problem_id: str,
    submissions: Path,
    out: Path,
    settings: Settings,
    jobs: int,
    force: bool = False,
    lang: str | None = None,
    stream=None,
    on_row=None,
    judge=None,
) -> int:
    """Grade a class and write its outputs; the exit status of `judge grade`.

    judge: a warm Judge to share (tests, a server); by default one is started and closed here.
    on_row(row): called as each row is ready (tests raise KeyboardInterrupt from it)."""
    if judge is None:
        from judge.service import Judge  # noqa: PLC0415 - keeps `judge --help` instant

        with Judge(settings) as own:
            return grade_class(problem_id, submissions, out, settings, jobs, force, lang, stream, on_row, own)
    stream = stream or sys.stderr
    lang = lang or settings.lang
    problem = judge.problem(problem_id)
    entries = discover(submissions, problem.meta.solution_file, skip=out)
    out.mkdir(parents=True, exist_ok=True)
    cache = ReportCache(out / CACHE, problem.digest, judge.versions())
    interrupted = False
    with progress_for(len(entries), stream) as progress:
        grader = BatchGrader(judge, problem, cache, jobs, force, on_row=_both(progress, on_row))
        try:
            rows = grader.run(entries)
        except Interrupted as stop:
            rows, interrupted = stop.rows, True
    write_outputs(out, rows, _sources(entries), problem, lang)
    _summary(rows, entries, out, interrupted, stream)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_INTERNAL if any(r.verdict == "internal_error" for r in rows) else EXIT_OK


def _both(progress, hook):
    def on_row(row: Row) -> None:
        progress(row)
        if hook is not None:
            hook(row)

    return on_row


def _sources(entries: list[Entry]) -> dict[str, str]:
    """Each student's text, for similarity (files that are not text are not compared)."""
    out = {}
    for entry in entries:
        try:
            text = entry.data.decode("utf-8") if entry.data else ""
        except UnicodeDecodeError:
            continue
        if text.strip() and "\x00" not in text:
            out[entry.student] = text
    return out


def _summary(rows: list[Row], entries: list[Entry], out: Path, interrupted: bool, stream) -> None:
    counts = Counter(r.verdict for r in rows)
    print(
        f"{len(rows)} of {len(entries)} students graded: " + ", ".join(f"{n} {v}" for v, n in counts.most_common()),
        file=stream,
    )
    for entry in entries:
        for note in entry.notes:
            if note.startswith("duplicate id '"):  # said once, on the entry that was renamed
                print(f"note: {note}", file=stream)
    if interrupted:
        print(
            f"interrupted: {len(entries) - len(rows)} students not graded yet; outputs in {out} hold the "
            f"{len(rows)} graded. Run the same command again to resume (finished ones come from {out / CACHE}).",
            file=stream,
        )
    else:
        print(
            f"outputs in {out}: grades.csv, reports.jsonl, feedback/, gradescope/, junit.xml, similarity.csv, "
            "class-report.html",
            file=stream,
        )
    if counts.get("internal_error"):
        print(
            f"{counts['internal_error']} judgement(s) failed twice with a fault of the judge (internal_error): "
            "see reports.jsonl; run again to retry them",
            file=stream,
        )
