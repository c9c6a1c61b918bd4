"""Report -> what a person reads: live marks per case and a closing summary (terminal or plain text)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from judge.models import Outcome, PublicReport, Verdict
from judge.textsafe import plain

MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("E", "red"), "skipped": ("s", "yellow")}
VERDICT_STYLE = {Verdict.accepted: "bold green", Verdict.wrong_answer: "bold red"}
VERDICT_ZH = {
    Verdict.accepted: "通过",
    Verdict.wrong_answer: "答案错误",
    Verdict.runtime_error: "运行时错误",
    Verdict.compile_error: "导入失败（编译错误）",
    Verdict.time_limit_exceeded: "超时",
    Verdict.memory_limit_exceeded: "超内存",
    Verdict.output_limit_exceeded: "输出超限",
    Verdict.internal_error: "判题系统内部错误",
}


class LiveMarks:
    """Prints one mark per finished case, as pytest's progress line does."""

    def __init__(self, console: Console):
        self.console = console
        self.open_line = False

    def __call__(self, event: dict) -> None:
        if event.type == "collected":
            self.console.print(f"运行 {event.total} 个测试 ", end="")
            self.open_line = True
        elif event.type == "case_finished":
            mark, style = MARKS[event.outcome.value]
            self.console.print(Text(mark, style=style), end="")
        elif event.type == "done" and self.open_line:
            self.console.print()
            self.open_line = False


def print_report(console: Console, report: PublicReport, path: str) -> None:
    verdict = Text(f"{report.verdict.value}  {VERDICT_ZH[report.verdict]}",
                   style=VERDICT_STYLE.get(report.verdict, "bold yellow"))
    console.print(Text("结果: ") + verdict + Text(f"   测试 {report.passed}/{report.total} 通过，用时 {report.duration_s:.1f} 秒"))
    if report.message and report.verdict != Verdict.accepted:
        console.print(Text(f"  {plain(report.message)}"))
    failures = [c for c in report.cases if c.outcome != Outcome.passed]
    shown = [c for c in failures if not c.hidden]
    for case in shown[:20]:
        mark, style = MARKS[case.outcome.value]
        console.print(Text(f"  {mark} ", style=style) + Text(plain(case.name), style="bold") + Text(f"  {plain(case.message)}"))
    hidden = sum(c.hidden for c in failures)
    if hidden:
        console.print(f"  另有 {hidden} 个隐藏测试没有通过（隐藏测试不显示细节，先让公开测试全部通过）")
    if report.output.strip():
        console.print("  你的代码的输出（末尾）:")
        console.print(Text(plain(report.output[-2000:].rstrip()), style="dim"), highlight=False)
    if report.verdict != Verdict.accepted:
        console.print(Text(f"  改好 {plain(path)} 后再运行一次。"))
