"""`python practice/judge.py 100 --statement` and `judge show 100`: the exercise's statement in the terminal, in the
learner's language, rendered with rich (headings, tables, code) and paged when it is longer than the screen."""

from __future__ import annotations

from rich.console import Console, Group
from rich.text import Text

from judge.cli.learner_io import EXIT_ACCEPTED
from judge.report.catalog import say
from judge.settings import Settings


def show_statement(problem_id: str, settings: Settings, console: Console | None = None) -> int:
    from judge.cli.statement_tables import statement_blocks  # noqa: PLC0415 - markdown-it only when asked
    from judge.problem.folders import ProblemSet  # noqa: PLC0415 - keeps `--help` instant

    problem = ProblemSet(settings.problems_dir).get(problem_id)
    console = console or Console(soft_wrap=False)
    blocks = statement_blocks(problem.prompt(settings.lang), settings.lang)
    body = Group(*(part for block in blocks for part in (block, Text())))  # a blank line after each block
    footer = say("cli.statement_footer", id=problem.id).get(settings.lang)
    if console.is_terminal:
        with console.pager(styles=True):
            console.print(body)
            console.print()
            console.print(footer, highlight=False, markup=False)
    else:
        console.print(body)
        console.print()
        console.print(footer, highlight=False, markup=False)
    return EXIT_ACCEPTED


def next_step(problem_id: str, settings: Settings) -> str:
    """After an accepted submit: the next exercise and its command, or that every exercise is done here."""
    from judge.problem.folders import ProblemSet  # noqa: PLC0415

    problems = ProblemSet(settings.problems_dir).all()
    ids = [p.id for p in problems]
    after = [p for p in problems if int(p.id) > int(problem_id)] if problem_id in ids else []
    if not after:
        return say("cli.all_done").get(settings.lang)
    following = after[0]
    title = following.meta.title.en if settings.lang == "en" else following.meta.title.zh
    return say("cli.next", id=following.id, title=title).get(settings.lang)
