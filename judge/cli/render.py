"""Report -> what a person reads: live marks per case and a closing summary, in the report's language."""

from __future__ import annotations

import json
import time
from itertools import groupby

from rich.cells import cell_len
from rich.console import Console
from rich.live import Live
from rich.text import Text

from judge.report.catalog import say
from judge.report.events import Event
from judge.report.i18n import Lang
from judge.report.models import Outcome, PublicCase, PublicReport, Verdict
from judge.report.optrace import PublicOpTrace
from judge.report.textsafe import plain

MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("E", "red"), "skipped": ("s", "yellow")}
VERDICT_STYLE = {Verdict.accepted: "bold green", Verdict.wrong_answer: "bold red"}
SHOWN_CASES = 20  # failing cases listed one per line; the rest are counted
OUTPUT_LINES = 30  # lines of the learner's output tail shown


def verdict_name(verdict: Verdict, lang: Lang) -> str:
    return say(f"verdict.{verdict.value}").get(lang)


class LiveMarks:
    """Prints one mark per finished case, as pytest's progress line does. On a terminal the line is live: it also
    shows the time since the tests started against the exercise's limit, and the public test that is running (for
    hidden tests, only that they run), as the browser does; elsewhere (a pipe, a file) it prints marks only."""

    def __init__(self, console: Console, lang: Lang = "zh", limit_s: float | None = None):
        self.console, self.lang, self.limit_s = console, lang, limit_s
        self.open_line = False
        self.live: Live | None = None
        self.marks, self.started, self.total = Text(), 0.0, 0
        self.running: list[str] = []  # started, not finished: two at once when a Run is split over two pairs

    def _line(self) -> Text:
        line = Text(say("cli.running", total=self.total).get(self.lang)) + self.marks
        elapsed = time.monotonic() - self.started
        clock = f"{elapsed:.1f} s" + (f" / {self.limit_s:.0f} s" if self.limit_s else "")
        line.append(f"  {clock}", style="dim")
        if self.running:
            line.append("  " + " · ".join(self.running), style="dim")
        return line

    def close(self) -> None:
        """End the live line (the judgement is over, or was cut short): it stays, without the running test."""
        if self.live is not None:
            self.running = []
            self.live.update(self._line(), refresh=True)
            self.live.stop()
            self.live = None

    def __call__(self, event: Event) -> None:
        if self.console.is_terminal:
            self._live(event)
            return
        if event.type == "collected" and event.total:
            self.console.print(say("cli.running", total=event.total).get(self.lang), end="")
            self.open_line = True
        elif event.type == "case_finished":
            mark, style = MARKS[event.outcome.value]
            self.console.print(Text(mark, style=style), end="")
        elif event.type == "done" and self.open_line:
            self.console.print()
            self.open_line = False

    def _live(self, event: Event) -> None:
        if event.type == "collected" and event.total:
            self.total, self.started = event.total, time.monotonic()
            self.live = Live(get_renderable=self._line, console=self.console, refresh_per_second=5, transient=False)
            self.live.start()
        elif self.live is None:
            return
        elif event.type == "case_started":
            self.running = (
                [say("cli.running_hidden").get(self.lang)] if event.hidden else [*self.running, plain(event.name)]
            )
        elif event.type == "case_finished":
            mark, style = MARKS[event.outcome.value]
            self.marks.append(mark, style=style)
            self.running = [name for name in self.running if name != plain(event.name)] if not event.hidden else []
        elif event.type == "done":
            self.close()


def print_judged(console: Console, report: PublicReport, as_json: bool, path: str, hints: int = 0) -> None:
    """The report as the learner asked for it: one JSON object on stdout (--json, nothing else), or the terminal's
    view of it (print_report)."""
    if as_json:
        print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False))
    else:
        print_report(console, report, path, hints)


def print_report(console: Console, report: PublicReport, path: str, hints: int = 0) -> None:
    """hints: how many rungs of each failing check's hint ladder to show (`--hint N`; 0: none, and a line saying
    that there are some)."""
    lang = report.lang
    # The machine-readable name always (learners search for it); the translation only where it adds something.
    name = verdict_name(report.verdict, lang)
    shown = (
        report.verdict.value if name.replace(" ", "_") == report.verdict.value else f"{report.verdict.value}  {name}"
    )
    verdict = Text(shown, style=VERDICT_STYLE.get(report.verdict, "bold yellow"))
    counts = say("cli.counts", passed=report.passed, total=report.total, seconds=report.duration_s).get(lang)
    console.print(Text(say("cli.result").get(lang)) + verdict + Text(counts if report.total else ""))
    skipped = [name.upper() for name, state in report.tiers.items() if state == "skipped"]
    if skipped:  # the verdict covers the tiers that ran; say what is left
        console.print(Text(say("cli.tiers_to_do", tiers=", ".join(skipped)).get(lang), style="yellow"))
    if report.message and report.verdict != Verdict.accepted:
        for line in report.message.splitlines():
            console.print(Text(f"  {plain(line)}"))
    for note in note_lines(report) + case_lines(report, hints):
        console.print(note)
    output = report.output.rstrip("\n").splitlines()[-OUTPUT_LINES:]
    if output:  # each line already carries the fence (models.OUTPUT_MARK): nothing printed reads as ours
        console.print(say("cli.output").get(lang))
        console.print(Text("\n".join(f"  {plain(line)}" for line in output), style="dim"), highlight=False)
    if report.verdict != Verdict.accepted:
        if not hints and any(c.hints for c in report.cases):
            console.print(Text(say("cli.hints_available", id=plain(report.problem)).get(lang), style="cyan"))
        console.print(Text(say("cli.fix", path=plain(path)).get(lang)))
        console.print(Text(say("cli.fix_statement", id=plain(report.problem)).get(lang)))


def note_lines(report: PublicReport) -> list[Text]:
    """A passing public case's note (the exercise's word on how it was judged), each different note once."""
    notes = dict.fromkeys(c.message for c in report.cases if c.outcome == Outcome.passed and c.message and not c.hidden)
    return [Text("  ✓ ", style="green") + Text(plain(note)) for note in notes]


def case_lines(report: PublicReport, hints: int = 0) -> list[Text]:
    """One line per failing case, with the first `hints` rungs of its check's hint ladder; tests that never ran as
    one line; a run of cases with the same message as its first case and a count."""
    lang, failures = report.lang, [c for c in report.cases if c.outcome != Outcome.passed]
    not_run = say("case.not_run").get(lang)
    if not report.cases and report.verdict == Verdict.compile_error:
        return [Text(say("cli.none_ran").get(lang))]
    if (
        failures
        and len(failures) == len(report.cases)
        and all(c.outcome == Outcome.error and (c.hidden or c.message == not_run) for c in failures)
    ):
        return [Text(say("cli.not_run", n=len(failures)).get(lang))]
    # Tests a limit stopped before they ran are not failures: one line for them all, after the failures, and no
    # "more failing tests" count includes them.
    skipped = [c for c in failures if c.outcome == Outcome.skipped or (not c.hidden and c.message == not_run)]
    failures = [c for c in failures if c not in skipped]
    groups = [
        list(g) for _, g in groupby(failures, key=lambda c: (c.hidden, c.outcome, c.hint if c.hidden else c.message))
    ]
    lines: list[Text] = []
    traced = False
    shown_checks: set[str] = set()
    for group in groups[:SHOWN_CASES]:
        lines.append(_case_line(group[0]))
        if hints and group[0].check not in shown_checks:  # a check's ladder once, under its first failing case
            shown_checks.add(group[0].check)
            lines.extend(hint_lines(group[0], hints, lang))
        trace = group[0].op_trace
        if trace is not None and not traced:  # the first one only: later ones mostly repeat it
            lines.extend(trace_lines(trace))
            traced = True
        if len(group) > 1:
            lines.append(Text(say("cli.same_message", n=len(group) - 1).get(lang)))
    rest = sum(len(group) for group in groups[SHOWN_CASES:])
    if rest:
        lines.append(Text(say("cli.more", n=rest).get(lang)))
    if skipped:
        lines.append(Text(say("cli.not_run", n=len(skipped)).get(lang)))
    return lines


def hint_lines(case: PublicCase, upto: int, lang: Lang) -> list[Text]:
    """The first `upto` hints of the case's check, each on its own line under the case: `hint 1/3: ...`."""
    shown = case.hints[:upto]
    return [
        Text(f"    {say('cli.hint_line', n=n, of=len(case.hints), text=plain(hint)).get(lang)}", style="cyan")
        for n, hint in enumerate(shown, 1)
    ]


def trace_lines(trace: PublicOpTrace) -> list[Text]:
    """The op trace under its case: a heading, the ops side by side (the first difference marked ▶), and the
    first difference in words."""
    heading = [plain(name) for name in trace.columns]
    width = max([cell_len(heading[0])] + [cell_len(plain(row.reference)) for row in trace.rows])
    lines = [Text(f"    {plain(trace.heading)}", style="dim")]
    lines.append(Text(f"        {heading[0]}{' ' * (width - cell_len(heading[0]))}   {heading[1]}", style="dim"))
    for row in trace.rows:
        marked = row.step == trace.first_difference
        reference = plain(row.reference)
        line = f"{'▶' if marked else ' '} {row.step:>2}  {reference}{' ' * (width - cell_len(reference))}   "
        lines.append(Text(f"    {line}{plain(row.yours)}", style="yellow" if marked else ""))
    lines.append(Text(f"    {plain(trace.summary)}", style="yellow"))
    return lines


def _case_line(case: PublicCase) -> Text:
    mark, style = MARKS[case.outcome.value]
    if case.hidden:  # "hidden 3 ✗ <the author's hint>": what it checks, never its inputs
        return Text(f"  {plain(case.name)} ") + Text(mark, style=style) + Text(f" {plain(case.hint)}".rstrip())
    return Text(f"  {mark} ", style=style) + Text(plain(case.name), style="bold") + Text(f"  {plain(case.message)}")
