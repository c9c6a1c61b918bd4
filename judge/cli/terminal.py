"""The terminal front end both commands share: judge one file and print what the learner reads; list exercises."""

from __future__ import annotations

import sys

from rich.console import Console

from judge.cli.learner_files import LearnerFiles
from judge.cli.learner_io import (
    EXIT_ACCEPTED,
    EXIT_REJECTED,
    EXIT_USAGE,
    announce,
    consoles,
    learner_target,
    read_submission,
)
from judge.cli.render import LiveMarks, print_judged
from judge.errors import JudgeError
from judge.problem.folders import Problem
from judge.problem.tiers import CPU
from judge.problem.tiers import SKIPPED as SKIPPED_TIER
from judge.queue.progress import Entry
from judge.report.catalog import MESSAGES, say
from judge.report.i18n import Lang, Text
from judge.report.models import Mode, PublicReport, Report, Verdict, internal_error
from judge.settings import Settings


def run_problem(
    problem_id: str,
    path: str | None,
    as_json: bool,
    public: bool,
    settings: Settings,
    server: str | None = None,
    hints: int = 0,
) -> int:
    """hints: rungs of each failing check's hint ladder to print (`--hint N`)."""
    if server:  # judged by a judge server's web API, printed the same way
        from judge.cli.server_client import run_remote  # noqa: PLC0415 - httpx only when asked for

        return run_remote(problem_id, path, as_json, public, server, settings, hints)
    from judge.problem.folders import ProblemSet  # noqa: PLC0415 - keeps `--help` instant

    lang, (out, err) = settings.lang, consoles()
    files = LearnerFiles(settings.solutions_dir, lang)
    problem = ProblemSet(settings.problems_dir).get(problem_id)
    target = learner_target(problem, path, files, err, lang)
    source = read_submission(target, settings.max_source_bytes)
    if not as_json:
        announce(err, problem, target, public, lang)
    marks = None if as_json else LiveMarks(out, lang, problem.meta.limits.wall_s)
    try:
        report = _grade(settings, problem, source, "run" if public else "submit", marks, target.name, err)
    finally:
        if marks is not None:
            marks.close()
    files.record_judged(problem, source, report, target)
    print_judged(out, report.public(lang), as_json, str(target), hints)
    if not as_json:
        _notices(err, report, lang)
        if report.verdict == Verdict.accepted and not public and SKIPPED_TIER not in report.tiers.values():
            from judge.cli.statement import next_step  # noqa: PLC0415

            out.print(next_step(problem.id, settings), highlight=False, markup=False)
    if report.verdict == Verdict.internal_error:
        return EXIT_USAGE
    return EXIT_ACCEPTED if report.verdict == Verdict.accepted else EXIT_REJECTED


def _grade(
    settings: Settings, problem: Problem, source: bytes, mode: Mode, marks: LiveMarks | None, name: str, err: Console
) -> Report:
    """Through the learner's warm local judge when there is one to use (judge.cli.daemon), else in this process:
    the same Judge.grade either way, so the same report, output and exit status."""
    if settings.daemon:
        from judge.cli import daemon_client  # noqa: PLC0415

        report = daemon_client.grade(settings, problem, source, mode, marks, name, err)
        if report is not None:
            return report
    from judge.service import Judge  # noqa: PLC0415 - only when judging here

    # One judgement, then this process ends: no pair is parked for a next Run (judge.grading.parking).
    with Judge(settings.model_copy(update={"park": False})) as judge:
        return judge.grade(problem.id, source, mode=mode, on_event=marks, display_name=name)


def _notices(err: Console, report: Report, lang: Lang) -> None:
    missing = sorted(name for name, state in report.run.layers.items() if state != "active")
    if missing:
        err.print(say("cli.layers_missing", layers=", ".join(missing)).get(lang))
    for tier, layers in sorted(report.tier_layers.items()):  # a second pass (the GPU tier) may have had fewer
        fewer = sorted(name for name, state in layers.items() if state != "active" and name not in missing)
        if fewer and tier != CPU:
            err.print(say("cli.tier_layers_missing", tier=tier.upper(), layers=", ".join(fewer)).get(lang))
    if report.verdict == Verdict.internal_error:
        what = report.detail.strip().splitlines()[0] if report.detail.strip() else "?"
        err.print(say("cli.internal", what=what).get(lang))


def internal_error_report(problem_id: str, public: bool, lang: Lang) -> PublicReport:
    """A broken exercise, as the learner reads it (its fault was printed already)."""
    mode: Mode = "run" if public else "submit"
    broken = internal_error(str(problem_id), mode, "", "problem", say("internal_error.problem"), retryable=False)
    return broken.public(lang)


def list_problems(settings: Settings) -> int:
    from judge.problem.folders import ProblemSet, missing_needs  # noqa: PLC0415

    files = LearnerFiles(settings.solutions_dir, settings.lang)
    console = Console(soft_wrap=True)
    count = total = 0
    for problem in ProblemSet(settings.problems_dir).all():
        title = problem.meta.title.en if settings.lang == "en" else problem.meta.title.zh
        missing = missing_needs(problem)  # e.g. 107 without Triton: say so, and which extra installs it
        needs = (
            "  "
            + say("list.needs", names=", ".join(missing)).get(settings.lang)
            + ": "
            + say("needs.install", extras=",".join(missing)).get(settings.lang)
            if missing
            else ""
        )
        difficulty = say(f"list.{problem.meta.difficulty}")
        row = say("list.row", id=f"{problem.id:>4}", title=title, difficulty=difficulty, state=files.state(problem))
        page = files.page(problem)  # the browser's, where `judge serve` shares this machine's data folder
        solved = files.solved(problem) or (page.solved if page is not None else None)
        mark = "✓" if solved else " "
        done = "  " + say("list.done", day=solved).get(settings.lang) if solved else ""
        on_page = "  " + _page_state(page).get(settings.lang) if page is not None else ""
        console.print(f"{mark}{row.get(settings.lang)}{done}{on_page}{needs}", highlight=False, markup=False)
        count += solved is not None
        total += 1
    console.print(say("list.done_count", done=count, total=total).get(settings.lang), highlight=False, markup=False)
    return EXIT_ACCEPTED


def _page_state(page: Entry) -> Text:
    """`page: accepted (all tests)`: the browser's last judgement of the exercise."""
    known = f"verdict.{page.verdict}" in MESSAGES
    verdict = say(f"verdict.{page.verdict}") if known else Text.same(page.verdict)
    tests = say("list.public_tests" if page.mode == "run" else "list.all_tests")
    return say("list.page", verdict=verdict, tests=tests)


def print_error(exc: JudgeError, lang: Lang) -> None:
    print(say("cli.error", message=exc.text).get(lang), file=sys.stderr)
