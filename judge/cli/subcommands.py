"""Sub-commands of the `judge` console script; each hands off to the module that does the work."""

from __future__ import annotations

import argparse
import json

from judge.cli.learner_command import add_arguments, run_learner
from judge.cli.learner_io import EXIT_USAGE, LANG_HELP
from judge.cli.terminal import list_problems, print_error
from judge.errors import JudgeError
from judge.report.catalog import say
from judge.settings import Settings


def _daemon(args: argparse.Namespace, settings: Settings) -> int:
    from judge.cli import daemon_client  # noqa: PLC0415

    if args.action == "stop":
        pids = daemon_client.stop_all(settings)
        print(say("daemon.stopped", n=len(pids)).get(settings.lang))
    elif args.json:  # the machine form: what each warm judge says of itself, as it says it
        print(json.dumps(daemon_client.statuses(settings), ensure_ascii=False))
    else:
        print("\n".join(daemon_client.status_lines(settings)))
    return 0


def _show(args: argparse.Namespace, settings: Settings) -> int:
    from judge.cli.statement import show_statement  # noqa: PLC0415
    from judge.errors import JudgeError  # noqa: PLC0415

    try:
        return show_statement(args.problem, settings)
    except JudgeError as exc:
        from judge.cli.terminal import print_error  # noqa: PLC0415

        print_error(exc, settings.lang)
        return 2


def _list(args: argparse.Namespace, settings: Settings) -> int:
    return list_problems(settings)


def _check(args: argparse.Namespace, settings: Settings) -> int:
    from judge.cli.checking import run_checks  # noqa: PLC0415

    return run_checks(settings, args.problem, args.all)


def _new(args: argparse.Namespace, settings: Settings) -> int:
    from judge.cli.scaffold import scaffold  # noqa: PLC0415

    folder = scaffold(settings.problems_dir, args.id, args.slug)
    print(f"created {folder}; fill in the TODOs, then run: judge check {args.id}")
    return 0


def _doctor(args: argparse.Namespace, settings: Settings) -> int:
    from judge.cli.doctor import run_doctor  # noqa: PLC0415

    return run_doctor(settings, live=not args.no_live, as_json=args.json)


# Modules that add sub-commands of their own: each has register(sub) adding a parser whose handler is
# handler(args, settings) -> exit status. They must import nothing heavy at module level (--help stays instant).
EXTENSIONS = [
    "judge.cli.trying",
    "judge.batch.command",
    "judge.image.command",
    "web.command",
    "web.lti.command",
    "judge.queue.command",
]


def _extensions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import importlib  # noqa: PLC0415

    for name in EXTENSIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise  # a missing dependency inside an extension is a real error
            continue  # an extension whose package this install leaves out
        module.register(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judge", description="practice-judge: judge handbook exercises.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser(
        "run",
        help="judge a file (like python practice/judge.py)",
        description="Judge a file against an exercise's tests and print the verdict.",
    )
    add_arguments(run, practice=False)
    run.set_defaults(handler=lambda args, settings: run_learner(args, settings, run))
    daemon = sub.add_parser(
        "daemon",
        help="show or stop your warm local judge (the one the CLI keeps running between runs)",
        description="status: each warm local judge of yours, its settings and how long until it ends idle; "
        "stop: end them all.",
    )
    daemon.add_argument("action", choices=["status", "stop"])
    daemon.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    daemon.add_argument("--json", action="store_true", help="status: print each warm judge's own answer as JSON")
    daemon.set_defaults(handler=_daemon)
    show = sub.add_parser("show", help="print an exercise's statement (paged in a terminal)")
    show.add_argument("problem", help="exercise number, e.g. 100")
    show.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    show.set_defaults(handler=_show)
    listing = sub.add_parser("list", help="list the exercises")
    listing.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    listing.set_defaults(handler=_list)
    doctor = sub.add_parser("doctor", help="show which isolation layers this host offers, and why any is missing")
    doctor.add_argument("--no-live", action="store_true", help="skip the sandboxed self-test job")
    doctor.add_argument("--json", action="store_true", help="print the findings as one JSON object")
    doctor.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    doctor.set_defaults(handler=_doctor)
    check = sub.add_parser("check", help="prove a problem folder sound (authors)")
    check.add_argument("problem", nargs="?")
    check.add_argument("--all", action="store_true", help="check every problem")
    check.set_defaults(handler=_check)
    new = sub.add_parser("new", help="scaffold a new problem folder (authors)")
    new.add_argument("id")
    new.add_argument("slug")
    new.set_defaults(handler=_new)
    _extensions(sub)
    return parser


def dispatch(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings()
    if getattr(args, "lang", None):  # --lang wins over PRACTICE_LANG
        settings = settings.model_copy(update={"lang": args.lang})
    try:
        return int(args.handler(args, settings))
    except JudgeError as exc:
        print_error(exc, settings.lang)
        return EXIT_USAGE
