"""`judge grade PROBLEM SUBMISSIONS --out DIR`: discover, judge on a pool, write every output, report."""

from __future__ import annotations

import difflib
import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from judge import exits
from judge.batch import state
from judge.batch.cache import ReportCache, shared_folder
from judge.batch.canvas_column import matching_note
from judge.batch.exercise import Exercise
from judge.batch.inputs import MAX_FILE, Entry, choose_best, scan
from judge.batch.lateness import TimesFile, apply_times, check_file_times
from judge.batch.outputs import write_outputs
from judge.batch.overrides import unmatched
from judge.batch.policy import GradeOptions
from judge.batch.policy import apply as apply_policy
from judge.batch.progress import progress_for
from judge.batch.rows import Row
from judge.batch.run import BatchGrader, Interrupted
from judge.errors import BadSubmission
from judge.report.i18n import Lang
from judge.settings import Settings
from judge.source import check_source

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_INTERRUPTED = exits.OK, exits.NOT_ACCEPTED, exits.USAGE, exits.INTERRUPTED
CACHE = Path(".cache") / "reports"


@dataclass(frozen=True)
class ClassRun:
    """How one `judge grade` run goes, besides what it grades: grade_class's keyword arguments."""

    jobs: int = 1  # judgements at once
    force: bool = False  # judge again what the cache holds
    lang: str | None = None  # --lang; else the course's, else the handbook's
    stream: TextIO | None = None  # where notes and the summary go (stderr)
    on_row: Callable[[Row], None] | None = None  # called as each row is ready (tests raise KeyboardInterrupt from it)
    judge: Any = None  # a warm Judge to share (tests, a server); by default one is started and closed here
    options: GradeOptions | None = None  # points, deadline, late penalty, LMS exports; the rest from DIR's last run
    only: str | None = None  # regrade this student alone (an id of the student column)
    replace: bool = False  # DIR may hold another problem's results, moved aside into DIR/previous-<time>/


def grade_class(problem_id: str, submissions: Path, out: Path, settings: Settings, **how: Any) -> int:
    """Grade a class and write its outputs, merged by student id into what DIR holds; the exit status.

    how: the keyword arguments of a ClassRun (jobs, force, lang, stream, on_row, judge, options, only, replace)."""
    run = ClassRun(**how)
    if run.judge is None:
        from judge.service import Judge  # noqa: PLC0415 - keeps `judge --help` instant

        with Judge(settings) as own:
            return grade_class(problem_id, submissions, out, settings, **{**asdict_shallow(run), "judge": own})
    jobs, force, lang, on_row, judge, only = run.jobs, run.force, run.lang, run.on_row, run.judge, run.only
    options, replace = run.options, run.replace
    stream = run.stream or sys.stderr
    problem = judge.problem(problem_id)
    earlier_problem = state.previous_problem(out)
    if earlier_problem is not None and earlier_problem != problem.id:
        if not replace:
            print(
                f"error: {out} holds the results of exercise {earlier_problem}, not {problem.id}: choose another "
                "--out, or add --replace to move them aside (into a previous-<time> folder) and start afresh",
                file=stream,
            )
            return EXIT_USAGE
        aside = state.move_aside(out)
        if aside is not None:
            print(f"note: the results of exercise {earlier_problem} were moved to {aside}", file=stream)
    earlier = state.load(out)
    if earlier is not None and earlier.problem != problem.id:
        earlier = None
    options = (options or GradeOptions()).filled_from(earlier.options if earlier else None)
    if lang is not None:
        options.lang = lang
    found = scan(submissions, Exercise.of(problem), skip=out, attempt=options.attempt)
    # --lang, else the course's: PRACTICE_LANG, else an LMS worksheet's language, else the handbook's (Chinese)
    course = settings.lang if os.environ.get("PRACTICE_LANG") else options.course_lang
    language: Lang = "en" if (options.lang or course or settings.lang) == "en" else "zh"
    if lang is None and options.lang is None and earlier is None:
        if not os.environ.get("PRACTICE_LANG") and options.course_lang:
            other = "zh" if language == "en" else "en"
            print(
                f"note: writing in {LANGUAGE_NAMES[language]}, the worksheet's language; --lang {other} to change",
                file=stream,
            )
        elif language == "zh" and not os.environ.get("PRACTICE_LANG"):
            print(
                "note: notes, feedback, LMS comments and the class report are in Chinese, the handbook's language; "
                "add --lang en (or set PRACTICE_LANG=en) for English",
                file=stream,
            )
    options.lang = language
    entries = found.entries
    if only is not None:
        entries = [e for e in found.entries if e.student == only]
        if not entries:
            close = difflib.get_close_matches(only, [e.student for e in found.entries], n=3)
            print(
                f"error: no student {only!r} in {submissions}"
                + (f" (did you mean {', '.join(close)}?)" if close else "")
                + "; --only takes an id of grades.csv's student column",
                file=stream,
            )
            return EXIT_USAGE
    if "canvas" in options.lms and not options.lms_column:
        title = problem.meta.title.en if language == "en" else problem.meta.title.zh
        print(f"note: {matching_note(title)}", file=stream)
    for note in options.notes:  # the zone the run reads zone-less times in, and why: said once
        print(f"note: {note}", file=stream)
    refused = _match_instructor_files(options, found.entries, earlier.rows if earlier else [], stream)
    if refused:
        print(f"error: {refused}", file=stream)
        return EXIT_USAGE
    if options.submitted_at:
        apply_times(found.entries, options.submitted_at, options.submitted_source or "submitted-at")
    refusal, warning = check_file_times(found.entries, options.deadline, options.late_from_mtime)
    if refusal:
        print(f"error: {refusal}", file=stream)
        return EXIT_USAGE
    if warning:
        print(f"note: {warning}", file=stream)
    shared_folder(out)
    cache = ReportCache(out / CACHE, problem.digest, judge.versions())
    interrupted = False
    if options.attempt == "best" and any(e.versions for e in entries):
        entries = _best_attempts(BatchGrader(judge, problem, cache, jobs, force), entries, stream)
        chosen = {e.student: e for e in entries}
        found.entries = [chosen.get(e.student, e) for e in found.entries]
    with progress_for(len(entries), stream) as progress:
        grader = BatchGrader(judge, problem, cache, jobs, force, on_row=_both(progress, on_row))
        try:
            rows = grader.run(entries)
        except Interrupted as stop:
            rows, interrupted = stop.rows, True
    kept = len({r.student for r in earlier.rows} - {r.student for r in rows}) if earlier else 0
    rows = state.merge(earlier.rows if earlier else [], rows)
    apply_policy(rows, options)
    write_outputs(out, rows, _sources(found.entries), problem, language, options, found.skipped)
    state.save(out, problem.id, options, rows)
    _summary(rows, entries, out, stream, _Tally(interrupted, kept, len(found.skipped)), options)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_INTERNAL if any(r.verdict == "internal_error" for r in rows) else EXIT_OK


LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}


def asdict_shallow(run: ClassRun) -> dict[str, Any]:
    """A ClassRun's fields as keyword arguments again (dataclasses.asdict would copy the judge and the options)."""
    return {f.name: getattr(run, f.name) for f in fields(run)}


def _match_instructor_files(options: GradeOptions, entries: list[Entry], earlier: list[Row], stream: TextIO) -> str:
    """Match what the instructor's files name to the download's students: the times file's rows ("N of M rows matched
    students of the download", into options.submitted_at), the extensions' and adjustments' students; the error that
    refuses the run, or ""."""
    students = {e.student for e in entries} | {r.student for r in earlier}
    # other ids of a student: Gradescope's SID (its rows are named by submission), the gradebook's SIS User ID
    aliases = {alias: e.student for e in entries for alias in e.aliases}
    aliases |= {names[1]: user for user, names in options.gradebook_names.items() if names[1]}
    options.extensions = {aliases.get(k, k): v for k, v in options.extensions.items()}
    options.adjustments = {aliases.get(k, k): v for k, v in options.adjustments.items()}
    times: TimesFile | None = options.times_file
    if times is not None:
        matched = times.match(students, aliases)
        if not matched.times:
            return times.no_match(students)
        print(f"note: {times.summary(matched)}", file=stream)
        options.submitted_at = matched.times
    for option, named in (("extensions", options.extensions), ("adjustments", options.adjustments)):
        refusal = unmatched(option, students, list(named))
        if refusal:
            return refusal
    return ""


def _best_attempts(grader: BatchGrader, entries: list[Entry], stream: TextIO) -> list[Entry]:
    """--attempt best: every attempt of the students who made several is judged (each distinct file once, cached,
    so the class's own pass then finds the chosen ones judged), and each student's best-scoring one is kept."""
    versions = [v for e in entries for v in e.versions]
    students = sum(bool(e.versions) for e in entries)
    print(f"--attempt best: judging {len(versions)} attempts of {students} students", file=stream)
    scores = {(row.student, row.source): row.score for row in grader.run(versions)}
    return [choose_best(e, {v.origin: scores.get((v.student, v.origin), 0.0) for v in e.versions}) for e in entries]


def _both(progress: Callable[[Row], None], hook: Callable[[Row], None] | None) -> Callable[[Row], None]:
    def on_row(row: Row) -> None:
        progress(row)
        if hook is not None:
            hook(row)

    return on_row


def _sources(entries: list[Entry]) -> dict[str, str]:
    """Each student's text as the judge reads it (judge/source.py), for similarity; files that are not text are not
    compared."""
    out: dict[str, str] = {}
    for entry in entries:
        if not entry.data:
            continue
        try:
            out[entry.student] = check_source(entry.data, MAX_FILE)
        except BadSubmission:
            continue
    return out


class _Tally(NamedTuple):
    interrupted: bool  # Ctrl-C stopped the run: the outputs hold what was graded
    kept: int  # students of an earlier run kept as they were
    skipped: int  # files that are no student's submission (skipped.csv)


def _summary(
    rows: list[Row], entries: list[Entry], out: Path, stream: TextIO, tally: _Tally, options: GradeOptions | None
) -> None:
    interrupted, kept, skipped = tally
    counts = Counter(r.verdict for r in rows)
    graded = len(rows) - kept
    now = Counter(r.verdict for r in rows if r.student in _ids(entries))
    print(
        f"{graded} of {len(entries)} students graded: " + ", ".join(f"{n} {v}" for v, n in now.most_common()),
        file=stream,
    )
    if kept:
        print(f"{kept} students of the earlier run kept as they were (merged by student id)", file=stream)
    if skipped:
        print(f"{skipped} files are no student's submission: listed in skipped.csv", file=stream)
    for entry in entries:
        for note in entry.notes:
            if note.startswith("duplicate id '"):  # said once, on the entry that was renamed
                print(f"note: {note}", file=stream)
    pending = [r.student for r in rows if r.pending_tiers]
    if pending:
        tiers = ", ".join(sorted({t for r in rows for t in r.pending_tiers}))
        print(
            f"{len(pending)} students have a tier still to be judged ({tiers}; no runner for it here): "
            "see the tiers column and the class report",
            file=stream,
        )
    if interrupted:
        print(
            f"interrupted: {len(entries) - graded} students not graded yet; outputs in {out} hold the "
            f"{len(rows)} graded. Run the same command again to resume (finished ones come from {out / CACHE}).",
            file=stream,
        )
    else:
        exports = [f"{name}.csv" for name in (options.lms if options else [])]
        print(
            f"outputs in {out}: grades.csv, grades.xlsx, reports.jsonl, feedback/, gradescope/, junit.xml, "
            f"similarity.csv, skipped.csv, class-report.html{''.join(', ' + e for e in exports)}",
            file=stream,
        )
        if options is not None:
            print(f"points out of {options.max_points:g} (set the LMS assignment's total to this)", file=stream)
    if counts.get("internal_error"):
        print(
            f"{counts['internal_error']} judgement(s) failed twice with a fault of the judge (internal_error): "
            "see reports.jsonl; run again to retry them",
            file=stream,
        )


def _ids(entries: list[Entry]) -> set[str]:
    return {e.student for e in entries}
