"""What both ways of judging a learner's file share: exit codes, the file to judge, its bytes, the consoles."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.console import Console

from judge import exits
from judge.cli.learner_files import LearnerFiles
from judge.errors import JudgeError
from judge.problem.folders import Problem
from judge.report.catalog import say
from judge.report.i18n import Lang

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = exits.OK, exits.NOT_ACCEPTED, exits.USAGE
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
    try:
        size = path.stat().st_size
        if size > limit:
            raise UsageError(say("source.too_big", size=size, limit=limit))
        return path.read_bytes()
    except OSError as exc:  # no permission, a file that vanished, an I/O error
        raise UsageError(say("usage.unreadable", path=path, why=exc.strerror or type(exc).__name__)) from None


def consoles() -> tuple[Console, Console]:
    """stdout and stderr consoles; learner text is never markup."""
    return (
        Console(soft_wrap=True, markup=False, highlight=False),
        Console(stderr=True, soft_wrap=True, markup=False, highlight=False),
    )


def learner_target(problem: Problem, path: str | None, files: LearnerFiles, err: Console, lang: Lang) -> Path:
    """The file to judge: PATH, or the learner's own file, created from the starter (and said so) if missing."""
    target = Path(path) if path else files.path(problem)
    if path is None and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(problem.starter_path, target)
        err.print(say("cli.starter_created", path=target, id=problem.id).get(lang))
    return target


def announce(err: Console, problem: Problem, target: Path, public: bool, lang: Lang) -> None:
    """'Judging 100 (title): path' in the reader's language."""
    title = problem.meta.title.en if lang == "en" else problem.meta.title.zh
    err.print(say("cli.judging_public" if public else "cli.judging", id=problem.id, title=title, path=target).get(lang))
