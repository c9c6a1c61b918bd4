"""Console front end of `judge check`: runs the self-checks and prints each with its time."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from judge.errors import JudgeError
from judge.problem.selfcheck import check_problem
from judge.settings import Settings


def run_checks(settings: Settings, problem_id: str | None, every: bool) -> int:
    from judge.service import Judge  # noqa: PLC0415

    if bool(problem_id) == every:
        raise JudgeError("give one problem id or --all")
    ids = [problem_id] if problem_id else []
    console = Console(soft_wrap=True)
    failed = 0
    with Judge(settings) as judge:
        problems = judge.problems() if every else [judge.problem(i) for i in ids]
        for problem in problems:
            console.print(Text(f"{problem.id}-{problem.meta.slug}  {problem.meta.title.en}", style="bold"))
            for check in check_problem(problem, judge.grade):
                failed += not check.ok
                mark = Text("  ok  ", style="green") if check.ok else Text("  FAIL", style="bold red")
                line = mark + Text(f" {check.seconds:6.2f}s  {check.name}")
                if check.detail:
                    line += Text(f"\n         {check.detail}", style="red")
                console.print(line, highlight=False)
    console.print(
        Text(
            f"{failed} check(s) failed" if failed else "all checks passed", style="bold red" if failed else "bold green"
        )
    )
    return 1 if failed else 0
