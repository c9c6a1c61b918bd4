"""The verdict decision is pure: checker log + sandbox facts -> report."""

import pytest

from judge.checker.events import CollectedCase, ImportProblem
from judge.grading.decide import CheckerLog, decide
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Verdict
from sandbox.base import JobFacts

LIMITS = {"memory": 2048, "wall": 60, "output": 1024}


def log_with(*outcomes, hidden=()):
    log = CheckerLog(exit_code=0 if all(o == "passed" for o in outcomes) else 1)
    for i, outcome in enumerate(outcomes):
        case_id = f"t.py::case{i}"
        log.collected.append(CollectedCase(id=case_id, name=f"case{i}", hidden=i in hidden))
        log.finished[case_id] = CaseResult(name=f"case{i}", outcome=Outcome(outcome), hidden=i in hidden)
    return log


def clean():
    return JobFacts(exit_code=0)


def test_all_passed_is_accepted_with_full_score():
    report = decide("1", "submit", log_with("passed", "passed"), clean(), LIMITS)
    assert (report.verdict, report.score, report.passed, report.total) == (Verdict.accepted, 1.0, 2, 2)


def test_one_failure_is_wrong_answer_with_partial_score():
    report = decide("1", "submit", log_with("passed", "failed", "passed", "passed"), clean(), LIMITS)
    assert report.verdict == Verdict.wrong_answer
    assert report.score == 0.75


def test_skipped_case_is_not_a_pass():
    assert decide("1", "submit", log_with("passed", "skipped"), clean(), LIMITS).verdict == Verdict.wrong_answer


def test_import_error_is_compile_error_and_reports_every_case():
    log = log_with("error", "error")
    log.import_error = ImportProblem(type="NameError", line=2)
    log.import_message = Text(zh="你的文件没能导入：NameError", en="Your file failed to import: NameError")
    report = decide("1", "submit", log, clean(), LIMITS, source="import torch\nx = undefined_name + 1\n")
    assert report.verdict == Verdict.compile_error and report.total == 2
    # one block: the error, the offending line with a caret under it, a one-line hint; in both languages
    zh, en = report.message.zh.splitlines(), report.message.en.splitlines()
    assert zh[0] == "你的文件没能导入：NameError" and en[0] == "Your file failed to import: NameError"
    assert zh[1].strip() == "x = undefined_name + 1" and set(zh[2].strip()) == {"^"}
    assert en[3].startswith("hint:") and len(en) == 4
    assert report.error_line == 2  # a fact of the report: no front end parses it out of the message


def test_a_file_that_never_finishes_importing_says_so_with_the_limit():
    log = log_with("error", "error")
    log.import_error = ImportProblem(lost=True)
    facts = JobFacts(signal=9, timed_out=True, wall_s=38.2)
    report = decide("1", "submit", log, facts, {**LIMITS, "wall": 30})
    assert report.verdict == Verdict.time_limit_exceeded  # not a compile error: the file had no error
    assert "did not finish importing within 30 s" in report.message.en and "30 秒内" in report.message.zh
    assert "38" not in report.message.en


def test_time_limit_message_states_the_problems_limit():
    facts = JobFacts(signal=9, timed_out=True, wall_s=38.2)
    report = decide("1", "submit", log_with("passed", "error"), facts, {**LIMITS, "wall": 30})
    assert "30 s" in report.message.en and "30 秒" in report.message.zh and "38" not in report.message.en


def test_pytest_crash_after_every_case_passed_is_internal_error():
    log = log_with("passed", "passed")
    log.exit_code = 3  # pytest's INTERNAL_ERROR: its report cannot be trusted, whatever the cases said
    report = decide("1", "submit", log, clean(), LIMITS)
    assert report.verdict == Verdict.internal_error
    assert "exit code 3" in report.detail


@pytest.mark.parametrize(
    "flag,verdict",
    [
        ("timed_out", Verdict.time_limit_exceeded),
        ("memory_exceeded", Verdict.memory_limit_exceeded),
        ("output_exceeded", Verdict.output_limit_exceeded),
    ],
)
def test_sandbox_limit_sets_verdict(flag, verdict):
    facts = JobFacts(signal=9, **{flag: True})
    assert decide("1", "submit", log_with("passed", "error"), facts, LIMITS).verdict == verdict


def test_memory_outranks_time_and_output():
    facts = JobFacts(signal=9, timed_out=True, memory_exceeded=True, output_exceeded=True)
    assert decide("1", "submit", log_with("error"), facts, LIMITS).verdict == Verdict.memory_limit_exceeded


def test_worker_lost_without_a_limit_is_runtime_error():
    report = decide("1", "run", log_with("passed", "error"), JobFacts(exit_code=0), LIMITS)
    assert report.verdict == Verdict.runtime_error
    assert "退出码 0" in report.message.zh and "exit code 0" in report.message.en


def test_exit_status_is_not_shown_when_hidden_tests_ran():
    """The submission chooses its exit status; with hidden tests it could carry hidden inputs out."""
    report = decide("1", "submit", log_with("passed", "error", hidden=(1,)), JobFacts(exit_code=57), LIMITS)
    assert report.verdict == Verdict.runtime_error and "57" not in report.message.zh


def test_missing_case_report_is_internal_error_not_accepted():
    log = log_with("passed", "passed")
    del log.finished["t.py::case1"]
    report = decide("1", "submit", log, clean(), LIMITS)
    assert report.verdict == Verdict.internal_error
    assert report.cases[1].outcome == Outcome.error


def test_no_cases_collected_is_internal_error():
    assert decide("1", "submit", CheckerLog(exit_code=5), clean(), LIMITS).verdict == Verdict.internal_error


def test_collection_error_is_internal_error():
    log = log_with("passed")
    log.collect_errors.append("SyntaxError in test_hidden.py")
    assert decide("1", "submit", log, clean(), LIMITS).verdict == Verdict.internal_error


def test_verdict_precedence_order():
    order = [
        Verdict.internal_error,
        Verdict.compile_error,
        Verdict.memory_limit_exceeded,
        Verdict.time_limit_exceeded,
        Verdict.output_limit_exceeded,
        Verdict.runtime_error,
        Verdict.wrong_answer,
        Verdict.accepted,
    ]
    for worse, better in zip(order, order[1:]):
        assert Verdict.worst([better, worse]) == worse


def test_sandbox_failure_is_internal_error_not_the_learners():
    facts = JobFacts(exit_code=87, sandbox_error="mount layer failed to apply")
    report = decide("1", "submit", log_with("error", "error"), facts, LIMITS)
    assert report.verdict == Verdict.internal_error
    assert "mount layer" in report.detail
