"""The public projection: what learners may see of a report."""

import json

from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, RunInfo, Verdict


def report(mode="submit"):
    return Report(
        problem="100",
        verdict=Verdict.wrong_answer,
        score=0.5,
        passed=1,
        total=2,
        mode=mode,
        run=RunInfo(output_tail="debug print of secret input"),
        cases=[
            CaseResult(name="test_public_one", outcome=Outcome.passed, message=""),
            CaseResult(
                name="test_secret_edge_case[float64]",
                outcome=Outcome.failed,
                hidden=True,
                message="expected 3.0 got 2.0",
                detail="assert torch.allclose(...)",
                hint=Text(zh="反向：一维输入", en="backward on a 1-D input"),
                duration_s=1.25,
            ),
        ],
    )


def test_hidden_case_keeps_outcome_but_not_name_or_message():
    public = report().public()
    hidden = public.cases[1]
    assert (hidden.name, hidden.outcome, hidden.hidden, hidden.message) == ("hidden 1", Outcome.failed, True, "")
    assert report().cases[1].duration_s == 1.25  # the full report keeps it (instructors), the projection does not:
    assert hidden.duration_s == 0.0  # the submission controls timing: no covert channel out of hidden cases
    text = json.dumps(public.model_dump(mode="json"))
    assert "secret_edge_case" not in text and "expected 3.0" not in text and "allclose" not in text


def test_public_case_keeps_name_and_message():
    assert report().public().cases[0].name == "test_public_one"


def test_output_shown_only_for_public_runs():
    assert report("submit").public().output == ""
    assert report("run").public().output == "│ debug print of secret input"


def test_public_report_has_the_cli_contract_keys():
    data = report().public().model_dump(mode="json")
    assert {"problem", "verdict", "score", "passed", "total", "cases"} <= set(data)
    # the contract's keys, and only the optional feedback beside them: the op trace (None unless a public case
    # failed), the hint ladder with its check's key (empty unless the case failed) and the line its message names
    contract = {"name", "outcome", "hidden", "message", "hint", "duration_s"}
    assert set(data["cases"][0]) - {"op_trace", "hints", "check", "line"} == contract
    assert data["cases"][0]["op_trace"] is None


def test_a_public_case_names_its_line_and_a_hidden_one_never_does():
    full = report()
    for case in full.cases:
        case.line = 7
    public, hidden = full.public().cases[:2]
    assert (public.hidden, public.line) == (False, 7)
    assert (hidden.hidden, hidden.line) == (True, None)  # the line a hidden input reached could carry it out


def test_hidden_case_shows_its_static_hint_in_the_asked_language():
    assert report().public("zh").cases[1].hint == "反向：一维输入"
    assert report().public("en").cases[1].hint == "backward on a 1-D input"
