"""The terminal front end both commands share: judge one file and print what the learner reads; list exercises."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from rich.console import Console

from judge.catalog import say
from judge.errors import JudgeError
from judge.i18n import Lang
from judge.models import Verdict
from judge.progress import LearnerFiles
from judge.render import LiveMarks, print_report
from judge.settings import Settings

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2
LANG_HELP = "language of everything printed: zh (default, or $PRACTICE_LANG) or en"
SERVER_HELP = "judge on this judge server (its web API, e.g. http://host:8000) instead of on this machine"


class UsageError(JudgeError):
    pass


def read_submission(path: Path, limit: int) -> bytes:
    """The file's bytes, or a UsageError (both languages) saying why it cannot be judged."""
    if path.is_dir():
        raise UsageError(say("usage.is_dir", path=path))
    if not path.is_file():
        raise UsageError(say("usage.no_file", path=path))
    size = path.stat().st_size
    if size > limit:
        raise UsageError(say("source.too_big", size=size, limit=limit))
    return path.read_bytes()


def consoles() -> tuple[Console, Console]:
    """stdout and stderr consoles; learner text is never markup."""
    return (Console(soft_wrap=True, markup=False, highlight=False),
            Console(stderr=True, soft_wrap=True, markup=False, highlight=False))


def run_problem(problem_id: str, path: str | None, as_json: bool, public: bool, settings: Settings,
                server: str | None = None) -> int:
    if server:  # judged by a judge server's web API, printed the same way
        from judge.server_client import run_remote  # noqa: PLC0415 - httpx only when asked for

        return run_remote(problem_id, path, as_json, public, server, settings)
    from judge.service import Judge  # noqa: PLC0415 - keeps `--help` and `--list` instant

    lang, (out, err) = settings.lang, consoles()
    files = LearnerFiles(settings.solutions_dir, lang)
    with Judge(settings) as judge:
        problem = judge.problem(problem_id)
        target = learner_target(problem, path, files, err, lang)
        source = read_submission(target, settings.max_source_bytes)
        if not as_json:
            announce(err, problem, target, public, lang)
        report = judge.grade(problem.id, source, mode="run" if public else "submit",
                             on_event=None if as_json else LiveMarks(out, lang), display_name=target.name)
    public_report = report.public(lang)
    if path is None or target.resolve() == files.path(problem).resolve():
        files.record(problem, source, report.verdict, report.mode)
    if as_json:
        print(json.dumps(public_report.model_dump(mode="json"), ensure_ascii=False))
    else:
        print_report(out, public_report, str(target))
        _notices(err, report, lang)
    if report.verdict == Verdict.internal_error:
        return EXIT_USAGE
    return EXIT_ACCEPTED if report.verdict == Verdict.accepted else EXIT_REJECTED


def learner_target(problem, path: str | None, files: LearnerFiles, err: Console, lang: Lang) -> Path:
    """The file to judge: PATH, or the learner's own file, created from the starter (and said so) if missing."""
    target = Path(path) if path else files.path(problem)
    if path is None and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(problem.starter_path, target)
        err.print(say("cli.starter_created", path=target, id=problem.id).get(lang))
    return target


def announce(err: Console, problem, target: Path, public: bool, lang: Lang) -> None:
    """'Judging 100 (title): path' in the reader's language."""
    title = problem.meta.title.en if lang == "en" else problem.meta.title.zh
    err.print(say("cli.judging_public" if public else "cli.judging", id=problem.id, title=title, path=target).get(lang))


def _notices(err: Console, report, lang: Lang) -> None:
    missing = sorted(name for name, state in report.run.layers.items() if state != "active")
    if missing:
        err.print(say("cli.layers_missing", layers=", ".join(missing)).get(lang))
    if report.verdict == Verdict.internal_error:
        what = report.detail.strip().splitlines()[0] if report.detail.strip() else "?"
        err.print(say("cli.internal", what=what).get(lang))


def internal_error_report(problem_id: str, public: bool, lang: Lang):
    from judge.models import Report  # noqa: PLC0415

    return Report(problem=str(problem_id), verdict=Verdict.internal_error, score=0, passed=0, total=0,
                  mode="run" if public else "submit", message=say("internal_error.problem")).public(lang)


def list_problems(settings: Settings) -> int:
    from judge.problems import ProblemSet  # noqa: PLC0415

    files = LearnerFiles(settings.solutions_dir, settings.lang)
    console = Console(soft_wrap=True)
    for problem in ProblemSet(settings.problems_dir).all():
        title = problem.meta.title.en if settings.lang == "en" else problem.meta.title.zh
        console.print(f"{problem.id:>4}  {title}  ({problem.meta.difficulty})  [{files.state(problem)}]",
                      highlight=False, markup=False)
    return EXIT_ACCEPTED


def print_error(exc: JudgeError, lang: Lang) -> None:
    print(say("cli.error", message=exc.text).get(lang), file=sys.stderr)
