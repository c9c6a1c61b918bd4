"""Sub-commands `judge grade` (a class's submissions) and `judge gradescope` (an autograder bundle)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

GRADE_EPILOG = """\
SUBMISSIONS: a folder with one file per student (alice.py), a folder with one folder per student, or a
zip of either (a single top-level folder inside the zip is looked through). The student id is the file
or folder name without its extension; duplicate ids are kept as id~2, id~3 and reported.

Outputs in DIR: grades.csv, reports.jsonl (full reports, hidden cases included), feedback/<student>.md,
gradescope/<student>/results.json, junit.xml, similarity.csv, class-report.html. Results are cached in
DIR/.cache: an unchanged re-run is nearly instant, an interrupted one resumes; --force judges again.
A file that cannot be judged at all (empty, binary, not UTF-8, too large, no file chosen) gets the
status 'rejected' with its reason, score 0.

Exit status: 0 every student has a row; 1 some row is internal_error after a retry; 2 usage error;
130 interrupted (partial outputs written; run again to resume)."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _grade(args, settings) -> int:
    from judge.batch.grade import grade_class  # noqa: PLC0415

    if args.queue:  # the same judgements, sent to `judge worker`s (web/queue imported lazily, like `judge serve`)
        from web.queue.grading import queue_judge  # noqa: PLC0415

        judge = queue_judge(settings)
        if judge is None:
            print("judge grade --queue: set PRACTICE_QUEUE_URL (e.g. redis://host:6379/0) and PRACTICE_DATABASE_URL")
            return 2
        with judge:
            return grade_class(
                args.problem,
                Path(args.submissions),
                Path(args.out),
                settings,
                jobs=args.jobs,
                force=args.force,
                lang=args.lang,
                judge=judge,
            )
    return grade_class(
        args.problem, Path(args.submissions), Path(args.out), settings, jobs=args.jobs, force=args.force, lang=args.lang
    )


def _gradescope(args, settings) -> int:
    from judge.batch.gradescope import build_bundle  # noqa: PLC0415

    path = build_bundle(args.problem, Path(args.out), settings)
    print(f"wrote {path}: upload it as the assignment's autograder (Gradescope runs setup.sh, then run_autograder)")
    return 0


def register(sub) -> None:
    grade = sub.add_parser(
        "grade",
        help="grade a class's submissions (instructors)",
        epilog=GRADE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    grade.add_argument("problem", help="exercise number, e.g. 100")
    grade.add_argument("submissions", help="folder or zip of the class's submissions")
    grade.add_argument("--out", required=True, help="folder for the outputs (created if missing)")
    grade.add_argument("--jobs", type=_positive, default=_cores(), help="judgements at once (default: the cores)")
    grade.add_argument("--force", action="store_true", help="judge again even what is cached")
    grade.add_argument(
        "--queue",
        action="store_true",
        help="send each judgement to the queue workers (PRACTICE_QUEUE_URL, PRACTICE_DATABASE_URL); "
        "--jobs is then how many wait at once",
    )
    grade.add_argument(
        "--lang",
        choices=["zh", "en"],
        default=None,
        help="language of the students' feedback (default: PRACTICE_LANG, else zh)",
    )
    grade.set_defaults(handler=_grade)
    scope = sub.add_parser("gradescope", help="write a Gradescope autograder bundle for an exercise (instructors)")
    scope.add_argument("problem", help="exercise number, e.g. 100")
    scope.add_argument("--out", required=True, help="the zip to write, e.g. autograder.zip")
    scope.set_defaults(handler=_gradescope)
