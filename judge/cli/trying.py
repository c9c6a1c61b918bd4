"""`judge try ID FILE`: your operator and the reference on an input you write (judge.grading.trying), in the
terminal: both outputs, their differences, the op trace. Without FILE it prints what can be tried and an example."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from judge.cli.learner_files import LearnerFiles
from judge.cli.learner_io import (
    EXIT_ACCEPTED,
    EXIT_REJECTED,
    EXIT_USAGE,
    LANG_HELP,
    UsageError,
    consoles,
    learner_target,
    read_submission,
)
from judge.cli.render import trace_lines
from judge.problem.folders import Problem
from judge.report.catalog import say
from judge.report.textsafe import plain
from judge.report.trying import PublicTry, TryResult, Value
from judge.settings import Settings

HELP = (
    "run your operator and the reference on an input you write (FILE: a small TOML form; without FILE, what can be "
    "tried and an example to start from)"
)
INPUT_FORM = """Your input is TOML: op = "<operator>", then [args] with each argument, either a number (eps = 1e-6), a
list, or a tensor: { shape = [2, 8], dtype = "float32", fill = "randn", seed = 0 } (fill: randn, rand, zeros,
ones, arange, randint with low/high, full with value), { values = [[1, 2], [3, 4]], dtype = "int64" }, or a Python
expression evaluated in the sandbox: { expr = "torch.linspace(-1, 1, 8)" }. docs/learner-guide.en.md has more."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("try", help=HELP, description=HELP + ".", epilog=INPUT_FORM)
    parser.add_argument("problem", help="exercise number, e.g. 100")
    parser.add_argument("file", nargs="?", help="your input (TOML); leave it out to see an example")
    parser.add_argument("--code", metavar="PATH", help="the solution to run (default: practice/solutions/<id>.py)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--lang", choices=["zh", "en"], help=LANG_HELP)
    parser.add_argument("--no-daemon", action="store_true", help="run in this process, not the warm local judge")
    parser.set_defaults(handler=run_try)


def run_try(args: argparse.Namespace, settings: Settings) -> int:
    from judge.problem.folders import ProblemSet  # noqa: PLC0415 - keeps `--help` instant
    from judge.problem.trying import ProblemTry  # noqa: PLC0415

    lang, (out, err) = settings.lang, consoles()
    problem = ProblemSet(settings.problems_dir).get(args.problem)
    ops = ProblemTry(problem).require()
    if args.file is None:
        for name, op in ops.items():
            out.print(say("try.example", op=name, args=", ".join(op.args), id=problem.id).get(lang))
            out.print(Text(op.example.strip() + "\n", style="cyan"))
        return EXIT_ACCEPTED
    input_text = _read_input(Path(args.file))
    files = LearnerFiles(settings.solutions_dir, lang)
    target = learner_target(problem, args.code, files, err, lang)
    source = read_submission(target, settings.max_source_bytes)
    here = settings.model_copy(update={"daemon": settings.daemon and not args.no_daemon})
    result = _run(here, problem, source, input_text, target.name, err)
    public = result.public(lang)
    if args.json:
        print(json.dumps(public.model_dump(mode="json"), ensure_ascii=False))
    else:
        print_try(out, public)
    if public.status == "internal":
        return EXIT_USAGE
    return EXIT_ACCEPTED if public.status == "same" else EXIT_REJECTED


def _read_input(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(say("usage.no_file", path=path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(say("usage.unreadable", path=path, why=getattr(exc, "strerror", None) or str(exc))) from None


def _run(settings: Settings, problem: Problem, source: bytes, input_text: str, name: str, err: Console) -> TryResult:
    """Through the learner's warm local judge when there is one to use, else in this process."""
    if settings.daemon:
        from judge.cli import daemon_client  # noqa: PLC0415

        result = daemon_client.try_input(settings, problem, source, input_text, name, err)
        if result is not None:
            return result
    from judge.service import Judge  # noqa: PLC0415

    with Judge(settings) as judge:
        return judge.try_input(problem.id, source, input_text, display_name=name)


def print_try(console: Console, result: PublicTry) -> None:
    """The Try as a person reads it: the input, the result in a sentence, each value of both outputs and how they
    differ, the op trace, what the code printed."""
    lang = result.lang
    console.print(Text(say("try.title", id=result.problem, op=result.op).get(lang), style="bold"))
    if result.input:
        colon = "：" if lang == "zh" else ": "
        console.print(Text(say("try.input").get(lang) + colon.strip(), style="bold"))
        for value in result.input:
            _value(console, value.name, value, colon=": ")
    style = "green" if result.status == "same" else "red" if result.status != "differs" else "yellow"
    console.print(Text(plain(result.message), style=f"bold {style}"))
    yours = {v.name: v for v in result.yours}
    theirs = {v.name: v for v in result.reference}
    differences = {d.name: d for d in result.differences}
    colon = "：" if lang == "zh" else ": "
    for name in [*theirs, *(n for n in yours if n not in theirs)]:
        difference = differences.get(name)
        if difference is not None and difference.same:  # one value is enough: both sides show the same
            console.print(Text(f"✓ {name}{colon}{plain(difference.message)}", style="green"))
            _value(console, "", yours[name], indent="    ", colon="")
            continue
        console.print(Text(f"{'✗ ' if difference else ''}{name}", style="bold"))
        for side, values in ((say("optrace.yours"), yours), (say("optrace.reference"), theirs)):
            if name in values:
                _value(console, side.get(lang), values[name], indent="    ", colon=colon)
        if difference is not None:
            console.print(Text(f"    {plain(difference.message)}", style="red"))
            if difference.diff:
                _value(console, say("try.diff").get(lang), Value(name="", text=difference.diff), "    ", colon)
    if result.op_trace is not None:
        for line in trace_lines(result.op_trace):
            console.print(line)
    output = result.output.rstrip("\n").splitlines()[-30:]
    if output:
        console.print(say("cli.output").get(lang))
        console.print(Text("\n".join(f"  {plain(line)}" for line in output), style="dim"), highlight=False)


def _value(console: Console, label: str, value: Value, indent: str = "  ", colon: str = ": ") -> None:
    lines = plain(value.text).splitlines() or [""]
    console.print(Text(f"{indent}{label}{colon}{lines[0]}"))
    pad = indent + " " * (cell_len(label) + cell_len(colon))
    for line in lines[1:]:
        console.print(Text(f"{pad}{line}"), highlight=False)
