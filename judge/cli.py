"""The `judge` command and the learner's `python practice/judge.py` form; both call Judge.grade()."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from rich.console import Console

from judge.errors import JudgeError, ProblemInvalid
from judge.models import Verdict
from judge.progress import LearnerFiles
from judge.render import LiveMarks, print_report
from judge.settings import Settings

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2


class UsageError(JudgeError):
    pass


def read_submission(path: Path, limit: int) -> bytes:
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    if path.stat().st_size > limit:
        raise UsageError(f"{path} is {path.stat().st_size} bytes; the limit is {limit} bytes (1 MB)")
    return path.read_bytes()


def run_problem(problem_id: str, path: str | None, as_json: bool, public: bool, settings: Settings) -> int:
    from judge.service import Judge  # noqa: PLC0415 - keeps `--help` and `--list` instant

    out = Console(soft_wrap=True, markup=False, highlight=False)  # learner text is never markup
    err = Console(stderr=True, soft_wrap=True, markup=False, highlight=False)
    files = LearnerFiles(settings.solutions_dir)
    with Judge(settings) as judge:
        problem = judge.problem(problem_id)
        target = Path(path) if path else files.path(problem)
        if path is None and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(problem.starter_path, target)
            err.print(f"已从起始代码创建 {target}：在里面完成 TODO，然后再运行 python practice/judge.py {problem.id}。"
                      "\n现在先判一次起始代码，看看有哪些测试（它不会通过）。")
        source = read_submission(target, settings.max_source_bytes)
        if not as_json:
            err.print(f"判题 {problem.id}（{problem.meta.title.zh}）：{target}"
                      + ("，只运行公开测试" if public else ""))
        report = judge.grade(problem.id, source, mode="run" if public else "submit",
                             on_event=None if as_json else LiveMarks(out), display_name=target.name)
    public_report = report.public()
    if path is None or target.resolve() == files.path(problem).resolve():
        files.record(problem, source, report.verdict, report.mode)
    if as_json:
        print(json.dumps(public_report.model_dump(mode="json"), ensure_ascii=False))
    else:
        print_report(out, public_report, str(target))
    missing = sorted(name for name, state in report.run.layers.items() if state != "active")
    if missing and not as_json:
        err.print(f"注意：本机没有这些隔离层：{', '.join(missing)}（运行 judge doctor 查看原因）。判题结果不受影响，"
                  "但你的代码受到的限制更少。")
    if report.verdict == Verdict.internal_error:
        err.print(f"internal error: {report.detail.strip().splitlines()[0] if report.detail.strip() else '?'}",
                  highlight=False)
        return EXIT_USAGE
    return EXIT_ACCEPTED if report.verdict == Verdict.accepted else EXIT_REJECTED


def internal_error_report(problem_id: str, public: bool):
    from judge.catalog import say  # noqa: PLC0415
    from judge.models import Report  # noqa: PLC0415

    return Report(problem=str(problem_id), verdict=Verdict.internal_error, score=0, passed=0, total=0,
                  mode="run" if public else "submit", message=say("internal_error.problem")).public()


def list_problems(settings: Settings) -> int:
    from judge.problems import ProblemSet  # noqa: PLC0415

    files = LearnerFiles(settings.solutions_dir)
    console = Console(soft_wrap=True)
    for problem in ProblemSet(settings.problems_dir).all():
        console.print(f"{problem.id:>4}  {problem.meta.title.zh}  ({problem.meta.difficulty})  "
                      f"[{files.state(problem)}]", highlight=False, markup=False)
    return EXIT_ACCEPTED


def practice_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python practice/judge.py",
                                     description="Judge your solution to a handbook exercise.")
    parser.add_argument("problem", nargs="?", help="exercise number, e.g. 100")
    parser.add_argument("path", nargs="?", help="file to judge (default: practice/solutions/<id>.py)")
    parser.add_argument("--json", action="store_true", help="print one JSON report on stdout, nothing else")
    parser.add_argument("--public", action="store_true", help="run only the public tests")
    parser.add_argument("--list", action="store_true", help="list the exercises and the state of your files")
    return parser


def practice_main(argv: list[str] | None = None) -> int:
    parser = practice_parser()
    args = parser.parse_args(argv)
    settings = Settings()
    try:
        if args.list:
            return list_problems(settings)
        if not args.problem:
            parser.print_usage(sys.stderr)
            print("error: give an exercise number (see --list)", file=sys.stderr)
            return EXIT_USAGE
        return run_problem(args.problem, args.path, args.json, args.public, settings)
    except ProblemInvalid as exc:
        if args.json:  # a broken problem is an internal error: --json callers still get a report
            print(json.dumps(internal_error_report(args.problem, args.public).model_dump(mode="json"), ensure_ascii=False))
        print(f"internal error: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    except JudgeError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """`judge run|list|doctor|check|new|serve ...`"""
    from judge import commands  # noqa: PLC0415

    return commands.dispatch(argv)


if __name__ == "__main__":
    sys.exit(main())
