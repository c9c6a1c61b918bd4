"""What the terminal prints for a report: hidden failures with their hints, tests that never ran as one line."""

from rich.console import Console

from judge.cli.render import case_lines, print_report
from judge.report.catalog import say
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, Verdict


def report(verdict, cases, message=None):
    return Report(
        problem="9",
        verdict=verdict,
        score=0,
        passed=0,
        total=len(cases),
        cases=cases,
        message=message if message is not None else Text(),
    )


def printed(public) -> list[str]:
    console = Console(record=True, width=200, color_system=None)
    print_report(console, public, "mine.py")
    return console.export_text().splitlines()


def test_each_failing_hidden_case_is_one_line_with_its_hint():
    cases = [
        CaseResult(name="test_a", outcome=Outcome.passed),
        CaseResult(
            name="test_secret",
            outcome=Outcome.failed,
            hidden=True,
            message="leaks 3.0",
            hint=Text(zh="反向：一维输入", en="backward on a 1-D input"),
        ),
    ]
    lines = printed(report(Verdict.wrong_answer, cases).public("en"))
    assert "  hidden 1 ✗ backward on a 1-D input" in lines
    assert not any("leaks" in line or "test_secret" in line for line in lines)


def test_tests_that_never_ran_are_one_line_not_one_per_test():
    not_run = say("case.not_run")
    cases = [CaseResult(name=f"test_{i}", outcome=Outcome.error, message=not_run) for i in range(5)]
    cases.append(CaseResult(name="h", outcome=Outcome.error, hidden=True))
    block = Text(
        zh="你的文件没能导入：NameError", en="Your file failed to import: NameError\n    x = y\n    ^\nhint: h"
    )
    lines = printed(report(Verdict.compile_error, cases, block).public("en"))
    assert "  6 tests not run" in lines and not any("test_1" in line for line in lines)
    assert lines[1:5] == ["  Your file failed to import: NameError", "      x = y", "      ^", "  hint: h"]


def test_a_run_of_the_same_message_is_one_line_and_a_count():
    lost = say("case.lost")
    cases = [CaseResult(name="test_first", outcome=Outcome.failed, message="wrong value")]
    cases += [CaseResult(name=f"test_{i}", outcome=Outcome.error, message=lost) for i in range(4)]
    lines = [line.plain for line in case_lines(report(Verdict.runtime_error, cases).public("en"))]
    assert lines == ["  ✗ test_first  wrong value", f"  E test_0  {lost.en}", "  … and 3 more with the same message"]


def test_after_a_time_limit_the_tests_not_run_fold_into_one_line_and_count_as_no_failure():
    """The case that hit the limit is named; the rest, skipped, are one line after it, never 'more failing tests'."""
    limit = Text(zh="超时", en="the time limit of 30 s was reached while this test ran")
    cases = [CaseResult(name="test_ok", outcome=Outcome.passed)]
    cases.append(CaseResult(name="test_loops", outcome=Outcome.error, message=limit))
    cases += [CaseResult(name=f"test_{i}", outcome=Outcome.skipped, message=say("case.not_run")) for i in range(35)]
    cases += [CaseResult(name=f"h{i}", outcome=Outcome.skipped, hidden=True) for i in range(3)]
    lines = [line.plain for line in case_lines(report(Verdict.time_limit_exceeded, cases).public("en"))]
    assert lines == [f"  E test_loops  {limit.en}", "  38 tests not run"]
    assert not any("failing" in line for line in lines)


def test_on_a_terminal_the_progress_line_shows_the_clock_against_the_limit_and_the_running_test():
    import io

    from judge.cli.render import LiveMarks
    from judge.report.events import CaseFinished, CaseStarted, Collected, Done

    console = Console(file=io.StringIO(), force_terminal=True, width=120, color_system=None)
    marks = LiveMarks(console, "en", limit_s=30)
    marks(Collected(total=3))
    marks(CaseStarted(name="test_first"))
    line = marks._line().plain
    assert line.startswith("running 3 tests ") and "s / 30 s" in line and line.endswith("test_first")
    marks(CaseFinished(index=1, total=3, name="test_first", hidden=False, outcome=Outcome.passed))
    marks(CaseStarted(hidden=True))
    assert marks._line().plain.endswith("hidden tests running")  # which hidden test, never
    marks(CaseFinished(index=2, total=3, name="hidden 1", outcome=Outcome.failed, hidden=True))
    marks(Done(verdict=Verdict.wrong_answer))
    assert marks.live is None and "✓✗" in marks._line().plain and "running" not in marks._line().plain[10:]
    split = LiveMarks(console, "en", limit_s=30)  # a Run split over two pairs: two tests run at once
    split(Collected(total=4))
    split(CaseStarted(name="test_a"))
    split(CaseStarted(name="test_c"))
    assert split._line().plain.endswith("test_a · test_c")
    split(CaseFinished(index=1, total=4, name="test_c", hidden=False, outcome=Outcome.passed))
    assert split._line().plain.endswith("test_a")
    split.close()
    piped = Console(file=io.StringIO(), force_terminal=False, color_system=None)
    plain_marks = LiveMarks(piped, "en", limit_s=30)  # a pipe or a file gets marks only, as before
    plain_marks(Collected(total=1))
    plain_marks(CaseFinished(index=1, total=1, name="t", hidden=False, outcome=Outcome.passed))
    plain_marks(Done(verdict=Verdict.accepted))
    assert piped.file.getvalue() == "running 1 tests ✓\n"
