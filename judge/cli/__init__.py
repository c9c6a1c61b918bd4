"""The terminal front end: `python practice/judge.py` and `judge` (Judge.grade()); may import any judge package."""

from __future__ import annotations

import argparse

from judge.cli.learner_command import add_arguments, run_learner, settings_for


def practice_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python practice/judge.py", description="Judge your solution to a handbook exercise."
    )
    add_arguments(parser, practice=True)
    return parser


def practice_main(argv: list[str] | None = None) -> int:
    parser = practice_parser()
    args = parser.parse_args(argv)
    return run_learner(args, settings_for(args.lang), parser)


def main(argv: list[str] | None = None) -> int:
    """`judge run|list|doctor|check|new|serve|daemon ...`"""
    from judge.cli import subcommands  # noqa: PLC0415

    return subcommands.dispatch(argv)
