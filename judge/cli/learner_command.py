"""The learner's command, parsed once: `python practice/judge.py` and `judge run` take the same arguments
and answer every error the same way (exit codes, --json reports, bilingual messages)."""

from __future__ import annotations

import argparse
import json
import sys

from judge.cli.learner_io import EXIT_USAGE, LANG_HELP, SERVER_HELP
from judge.cli.terminal import internal_error_report, list_problems, print_error, run_problem
from judge.errors import JudgeError, ProblemInvalid
from judge.problem.hints import MAX_HINTS
from judge.report.catalog import say
from judge.settings import Settings

NO_DAEMON_HELP = (
    "judge in this process instead of the warm local judge that stays running between runs (or $PRACTICE_DAEMON=0)"
)


def add_arguments(parser: argparse.ArgumentParser, *, practice: bool) -> None:
    """practice: `python practice/judge.py` (the exercise may be left out for --list); else `judge run`."""
    parser.add_argument("problem", nargs="?" if practice else None, help="exercise number, e.g. 100")
    parser.add_argument(
        "path",
        nargs="?",
        help="file to judge (default: practice/solutions/<id>.py, created from the starter if missing)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON report on stdout, nothing else")
    parser.add_argument("--public", action="store_true", help="run only the public tests")
    if practice:
        parser.add_argument("--list", action="store_true", help="list the exercises and the state of your files")
    parser.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    parser.add_argument("--server", metavar="URL", help=SERVER_HELP)
    parser.add_argument("--no-daemon", action="store_true", help=NO_DAEMON_HELP)
    parser.add_argument(
        "--statement", action="store_true", help="print the exercise's statement (paged in a terminal), judge nothing"
    )
    parser.add_argument(
        "--hint",
        type=int,
        choices=range(1, MAX_HINTS + 1),
        default=0,
        metavar="N",
        help="under each failing check, its first N hints (1 a nudge, 2 the concept and where the chapter explains "
        "it, 3 the near-answer)",
    )


def settings_for(lang: str | None) -> Settings:
    """Settings from the environment; --lang, when given, wins over PRACTICE_LANG."""
    settings = Settings()
    return settings.model_copy(update={"lang": lang}) if lang else settings


def run_learner(args: argparse.Namespace, settings: Settings, parser: argparse.ArgumentParser) -> int:
    """Judge (or list) as the arguments say; every refusal is one line on stderr and exit status 2."""
    if args.no_daemon:
        settings = settings.model_copy(update={"daemon": False})
    try:
        if getattr(args, "list", False):
            return list_problems(settings)
        if not args.problem:
            parser.print_usage(sys.stderr)
            print(say("cli.error", message=say("cli.give_exercise")).get(settings.lang), file=sys.stderr)
            return EXIT_USAGE
        if args.statement:
            from judge.cli.statement import show_statement  # noqa: PLC0415 - rich's markdown only when asked

            return show_statement(args.problem, settings)
        return run_problem(args.problem, args.path, args.json, args.public, settings, args.server, args.hint)
    except ProblemInvalid as exc:
        if args.json:  # a broken problem is an internal error: --json callers still get a report
            report = internal_error_report(args.problem, args.public, settings.lang)
            print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False))
        print(say("cli.internal", what=exc.message).get(settings.lang), file=sys.stderr)
        return EXIT_USAGE
    except JudgeError as exc:
        print_error(exc, settings.lang)
        return EXIT_USAGE
    except OSError as exc:  # a folder or file the judge could not read or write
        what = say("usage.os_error", path=exc.filename or "", why=exc.strerror or type(exc).__name__)
        print_error(JudgeError(what), settings.lang)
        return EXIT_USAGE
