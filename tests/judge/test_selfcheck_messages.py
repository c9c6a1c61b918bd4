"""A wrong solution's `# expect-message:` lines: its self-test fails unless a failing case says each of them."""

from __future__ import annotations

from judge.problem.selfcheck import SolutionCase, expected_messages
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, Verdict

SOURCE = "# expect: wrong_answer\n# expect-message: a race on a GPU\ndef add(a, b):\n    return a - b\n"


def report(message: str) -> Report:
    case = CaseResult(name="test_add", outcome=Outcome.failed, message=Text(zh="错", en=message))
    return Report(problem="900", verdict=Verdict.wrong_answer, score=0, passed=0, total=1, mode="submit", cases=[case])


def judged(tmp_path, message: str):
    path = tmp_path / "wrong.py"
    path.write_text(SOURCE)
    return SolutionCase("wrong/wrong.py gets wrong_answer", path, Verdict.wrong_answer).judge(
        lambda problem, source: report(message), problem=type("P", (), {"id": "900"})()
    )


def test_the_expected_message_must_be_said(tmp_path):
    assert expected_messages(SOURCE) == ["a race on a GPU"]
    assert judged(tmp_path, "kernel k wrote 3 elements from more than one program, a race on a GPU").ok
    said_otherwise = judged(tmp_path, "your program ended (killed by signal 6)")
    assert not said_otherwise.ok and "no failing case says 'a race on a GPU'" in said_otherwise.detail
