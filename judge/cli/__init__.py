"""The learner's `python practice/judge.py` form and the `judge` console script; both call Judge.grade()."""

from __future__ import annotations

import argparse
import json
import sys

from judge.catalog import say
from judge.cli.learner_io import EXIT_USAGE, LANG_HELP, SERVER_HELP
from judge.cli.terminal import internal_error_report, list_problems, print_error, run_problem
from judge.errors import JudgeError, ProblemInvalid
from judge.settings import Settings


def settings_for(lang: str | None) -> Settings:
    """Settings from the environment; --lang, when given, wins over PRACTICE_LANG."""
    settings = Settings()
    return settings.model_copy(update={"lang": lang}) if lang else settings


def practice_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python practice/judge.py", description="Judge your solution to a handbook exercise."
    )
    parser.add_argument("problem", nargs="?", help="exercise number, e.g. 100")
    parser.add_argument("path", nargs="?", help="file to judge (default: practice/solutions/<id>.py)")
    parser.add_argument("--json", action="store_true", help="print one JSON report on stdout, nothing else")
    parser.add_argument("--public", action="store_true", help="run only the public tests")
    parser.add_argument("--list", action="store_true", help="list the exercises and the state of your files")
    parser.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    parser.add_argument("--server", metavar="URL", help=SERVER_HELP)
    return parser


def practice_main(argv: list[str] | None = None) -> int:
    parser = practice_parser()
    args = parser.parse_args(argv)
    settings = settings_for(args.lang)
    try:
        if args.list:
            return list_problems(settings)
        if not args.problem:
            parser.print_usage(sys.stderr)
            print(say("cli.error", message=say("cli.give_exercise")).get(settings.lang), file=sys.stderr)
            return EXIT_USAGE
        return run_problem(args.problem, args.path, args.json, args.public, settings, args.server)
    except ProblemInvalid as exc:
        if args.json:  # a broken problem is an internal error: --json callers still get a report
            report = internal_error_report(args.problem, args.public, settings.lang)
            print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False))
        print(say("cli.internal", what=exc.message).get(settings.lang), file=sys.stderr)
        return EXIT_USAGE
    except JudgeError as exc:
        print_error(exc, settings.lang)
        return EXIT_USAGE
    except OSError as exc:
        print_error(JudgeError(str(exc)), settings.lang)
        return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """`judge run|list|doctor|check|new|serve ...`"""
    from judge.cli import subcommands  # noqa: PLC0415

    return subcommands.dispatch(argv)
