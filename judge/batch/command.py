"""Sub-commands `judge grade` (a class's submissions) and `judge gradescope` (an autograder bundle)."""

from __future__ import annotations

import argparse
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.batch.policy import GradeOptions
    from judge.settings import Settings

GRADE_EPILOG = """\
SUBMISSIONS: a folder with one file per student (alice.py), a folder with one folder per student, or a
zip of either (a single top-level folder inside the zip is looked through). The student id is the file
or folder name without its extension; duplicate ids are kept as id~2, id~3 and reported.

Canvas, Moodle, Gradescope and Blackboard downloads are recognised by their names: the student column
then holds the LMS's id, name the student's name; the latest attempt is judged (--attempt first or best to
choose otherwise; best judges each), the others listed.
A .ipynb notebook is judged from its code cells in order (IPython magics and shell lines left out).
Files that are neither .py, .ipynb nor a zip are listed in skipped.csv.

Times without a zone (--deadline, --worksheet, --submitted-at, --extensions) are read in --timezone, else in
the deadline's offset (a worksheet's), else in this machine's zone; the run says which. --extensions and
--adjustments are kept in DIR for --only and later runs.

Outputs in DIR: grades.csv and grades.xlsx, reports.jsonl (full reports, hidden cases included),
feedback/<student>.md, gradescope/<student>/results.json, junit.xml, similarity.csv, skipped.csv,
class-report.html, and canvas.csv / moodle.csv with --lms. A run merges into DIR by student id (--only
regrades one student with the first run's options); nothing is deleted. Results are cached in
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


def _deadline(text: str) -> datetime:
    """An ISO 8601 time, with the zone it carries or none (read in the course's zone: judge.batch.zones)."""
    from judge.batch.zones import parse_moment  # noqa: PLC0415

    try:
        return parse_moment(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r} (e.g. 2026-03-01T23:59+08:00)") from None


def _zone(text: str) -> str:
    from judge.batch.zones import zone_of  # noqa: PLC0415

    try:
        zone_of(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _percent(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("must be between 0 and 100")
    return value


def _points(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def grade_options(args: argparse.Namespace) -> GradeOptions:
    """The output-shaping options this command line gives (those it leaves out come from DIR's earlier run).

    Times without a zone (the deadline, a worksheet's, a times file's, an extension's) are read in the course's zone:
    --timezone, else the deadline's offset, else this machine's (judge.batch.zones); the run says which, once."""
    from judge.batch.lateness import read_times, worksheet_language  # noqa: PLC0415
    from judge.batch.overrides import read_adjustments, read_extensions  # noqa: PLC0415
    from judge.batch.policy import GradeOptions  # noqa: PLC0415
    from judge.batch.zones import choose_zone, in_zone  # noqa: PLC0415

    deadline: datetime | None = args.deadline
    given: dict[str, Any] = {
        "points": args.points,
        "late_penalty": args.late_penalty,
        "lms": args.lms or None,
        "lms_column": args.lms_column,
        "late_from_mtime": True if getattr(args, "late_from_mtime", False) else None,
        "attempt": getattr(args, "attempt", None),
    }
    times = None
    for option, source in (("submitted_at", "submitted-at"), ("worksheet", "worksheet")):
        path = getattr(args, option, None)
        if path:  # the times the instructor gives win over the download's own
            times = read_times(Path(path), source)
    extensions = read_extensions(Path(args.extensions)) if getattr(args, "extensions", None) else {}
    zoneless = [f"--{times.source}"] if times is not None and times.zoneless else []
    zoneless += ["--deadline"] if deadline is not None and deadline.tzinfo is None else []
    zoneless += ["--extensions"] if any(when.tzinfo is None for when in extensions.values()) else []
    course = choose_zone(getattr(args, "timezone", None), deadline, zoneless)
    if getattr(args, "timezone", None) or zoneless or deadline is not None or times is not None or extensions:
        given["timezone"] = course.name
    if deadline is not None:
        given["deadline"] = in_zone(deadline, course.tz)
    if times is not None:
        times.read_in(course.tz)
        given["times_file"], given["submitted_source"] = times, times.source
    if extensions:
        given["extensions"] = {student: in_zone(when, course.tz) for student, when in extensions.items()}
    if getattr(args, "adjustments", None):
        given["adjustments"] = read_adjustments(Path(args.adjustments))
    if getattr(args, "worksheet", None):
        given["course_lang"] = worksheet_language(Path(args.worksheet))
    options = GradeOptions(**{k: v for k, v in given.items() if v is not None})
    options.notes = [course.note] if course.note else []
    return options


def command_options(args: argparse.Namespace, settings: Settings) -> GradeOptions:
    """grade_options, with canvas.csv's column taken from a Canvas gradebook export when one is given."""
    options = grade_options(args)
    if getattr(args, "gradebook", None):
        from judge.batch.canvas_column import column_from_gradebook, gradebook_students  # noqa: PLC0415
        from judge.problem.folders import ProblemSet  # noqa: PLC0415

        options.gradebook_names = gradebook_students(Path(args.gradebook))
        if not args.lms_column:
            problem = ProblemSet(settings.problems_dir).get(args.problem)
            titles = [problem.meta.title.zh, problem.meta.title.en]
            options.lms_column = column_from_gradebook(Path(args.gradebook), problem.id, titles)
        if "canvas" not in options.lms:
            options.lms = [*options.lms, "canvas"]
    return options


def _grade(args: argparse.Namespace, settings: Settings) -> int:
    from judge.extras import require  # noqa: PLC0415

    require("grade", "judge grade")
    from judge.batch.grade import grade_class  # noqa: PLC0415

    run = {
        "jobs": args.jobs,
        "force": args.force,
        "lang": args.lang,
        "options": command_options(args, settings),
        "only": args.only,
        "replace": args.replace,
    }
    where = (args.problem, Path(args.submissions), Path(args.out), settings)
    if args.queue:  # the same judgements, sent to `judge worker`s (judge/queue imported lazily, like `judge serve`)
        require("scale", "judge grade --queue")
        from judge.queue.grading import queue_judge  # noqa: PLC0415

        judge = queue_judge(settings)
        if judge is None:
            print("judge grade --queue: set PRACTICE_QUEUE_URL (e.g. redis://host:6379/0) and PRACTICE_DATABASE_URL")
            return 2
        with judge:
            return grade_class(*where, judge=judge, **run)
    return grade_class(*where, **run)


def _gradescope(args: argparse.Namespace, settings: Settings) -> int:
    from judge.extras import require  # noqa: PLC0415

    require("grade", "judge gradescope")
    from judge.batch.gradescope import build_bundle  # noqa: PLC0415

    path = build_bundle(args.problem, Path(args.out), settings, points=args.points)
    print(f"wrote {path}: upload it as the assignment's autograder (Gradescope runs setup.sh, then run_autograder)")
    print(f"set the assignment's total points to {args.points or 100:g}: results.json scores out of that")
    return 0


def register(sub: Any) -> None:
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
    grade.add_argument("--points", type=_points, help="scale scores to N points (default 100)")
    grade.add_argument(
        "--deadline", type=_deadline, help="ISO 8601 time; later submissions are late (no zone: --timezone's)"
    )
    grade.add_argument(
        "--timezone",
        type=_zone,
        metavar="ZONE",
        help="the course's IANA zone (Asia/Shanghai): times without a zone in --deadline, --worksheet, "
        "--submitted-at and --extensions are read in it, and every time is shown in it (default: the deadline's "
        "offset for a worksheet's times, else this machine's zone; the run says which)",
    )
    grade.add_argument("--late-penalty", type=_percent, metavar="PCT", help="percent of the points off per day late")
    grade.add_argument(
        "--lms", action="append", choices=["canvas", "moodle"], help="also write canvas.csv / moodle.csv (repeatable)"
    )
    grade.add_argument("--lms-column", help="the assignment's column in canvas.csv (default: the exercise's title)")
    grade.add_argument(
        "--gradebook",
        metavar="FILE",
        help="a Canvas gradebook export: canvas.csv fills the one assignment column that names this exercise",
    )
    grade.add_argument(
        "--submitted-at",
        metavar="FILE",
        help="the times lateness uses: Canvas's submissions from its API (user_id, submitted_at; CSV or JSON, as "
        "canvasapi and pandas write them), a Canvas CSV with Student ID or SIS User ID, or any CSV of student id "
        "and time. Canvas's gradebook export has no times",
    )
    grade.add_argument(
        "--extensions",
        metavar="FILE",
        help="a CSV of student,deadline (ISO 8601; no zone: --timezone's): that student's lateness counts from it",
    )
    grade.add_argument(
        "--adjustments",
        metavar="FILE",
        help="a CSV of student,points,reason: signed points added after the late penalty, kept within [0, --points]; "
        "the reason is shown to the student",
    )
    grade.add_argument(
        "--worksheet", metavar="FILE", help="Moodle's grading worksheet: its 'Last modified (submission)' times"
    )
    grade.add_argument(
        "--late-from-mtime",
        action="store_true",
        help="time submissions that carry no other time by their files' times (refused when those look reset)",
    )
    grade.add_argument(
        "--attempt",
        choices=["last", "first", "best"],
        help="which of a student's attempts to grade (Canvas's re-uploads 101-1.py, Gradescope's resubmissions): "
        "the latest (default), the first, or the best score (each attempt judged)",
    )
    grade.add_argument("--only", metavar="ID", help="regrade this student alone and merge the row into DIR")
    grade.add_argument(
        "--replace", action="store_true", help="DIR holds another exercise's results: move them aside, start afresh"
    )
    grade.set_defaults(handler=_grade)
    scope = sub.add_parser("gradescope", help="write a Gradescope autograder bundle for an exercise (instructors)")
    scope.add_argument("problem", help="exercise number, e.g. 100")
    scope.add_argument("--out", required=True, help="the zip to write, e.g. autograder.zip")
    scope.add_argument("--points", type=_points, help="the assignment's total points (default 100)")
    scope.set_defaults(handler=_gradescope)
