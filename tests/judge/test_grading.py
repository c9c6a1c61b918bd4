"""End-to-end judgements of the fixture problem 900 (add two tensors), including misbehaving submissions."""

import pytest

from judge.errors import BadSubmission, JudgeError, UnknownProblem
from judge.report.i18n import Text
from judge.report.models import Outcome, Verdict

pytestmark = pytest.mark.slow

GOOD = "def add(a, b):\n    return a + b\n"


def grade(judge, source, **kw):
    return judge.grade("900", source, **kw)


def test_correct_submission_is_accepted(fixture_judge):
    report = grade(fixture_judge, GOOD)
    assert report.verdict == Verdict.accepted
    assert [c.hidden for c in report.cases] == [False, False, True]


def test_run_mode_runs_only_public_tests(fixture_judge):
    report = grade(fixture_judge, GOOD, mode="run")
    assert report.total == 2 and not any(c.hidden for c in report.cases)


def test_events_stream_every_case_without_hidden_names(fixture_judge):
    events = []
    grade(fixture_judge, GOOD, on_event=events.append)
    finished = [e for e in events if e.type == "case_finished"]
    assert events[0].type == "collected" and events[-1].type == "done"
    assert [e.name for e in finished] == ["test_add[small]", "test_add[big]", "hidden 1"]


def test_wrong_value_is_wrong_answer_with_the_tests_message(fixture_judge):
    report = grade(fixture_judge, "def add(a, b):\n    return a - b\n")
    assert report.verdict == Verdict.wrong_answer
    assert report.cases[0].message == Text(zh="add 结果不对", en="add returns the wrong sum")  # msg() decoded


def test_events_carry_nothing_of_a_hidden_case_but_its_outcome_and_hint(fixture_judge):
    events = []
    report = grade(fixture_judge, "def add(a, b):\n    return a - b\n", on_event=events.append)
    hidden = report.cases[-1]
    assert hidden.hidden and hidden.message and hidden.duration_s > 0  # the full report has both (instructors)
    sent = [e for e in events if e.type == "case_finished" and e.hidden]
    assert len(sent) == 1 and sent[0].outcome == Outcome.failed
    assert sent[0].message == Text() and sent[0].duration_s == 0.0 and sent[0].name == "hidden 1"
    assert sent[0].hint == Text(zh="加法：随机输入", en="addition on seeded random inputs")
    assert "hidden: add" not in str([e.model_dump() for e in events])


def test_exception_in_learner_code_names_the_line(fixture_judge):
    report = grade(fixture_judge, "def add(a, b):\n\n    return a / 0 + undefined\n")
    assert report.verdict == Verdict.wrong_answer
    assert "NameError" in report.cases[0].message.zh and "第 3 行" in report.cases[0].message.zh
    assert (
        report.cases[0].message.en.startswith("Your code raised NameError") and "line 3" in report.cases[0].message.en
    )


def test_syntax_error_is_compile_error_with_file_and_line(fixture_judge):
    events = []
    report = grade(fixture_judge, "def add(a, b)\n    return a + b\n", display_name="mine.py", on_event=events.append)
    assert report.verdict == Verdict.compile_error
    assert "mine.py 第 1 行" in report.message.zh and "(mine.py line 1)" in report.message.en
    assert report.message.en.splitlines()[1:3] == ["    def add(a, b)", "                 ^"]
    # found by compiling in the judge: no test collected, none run
    assert report.total == 0 and report.cases == [] and [e.type for e in events] == ["collected", "done"]


def test_import_error_is_compile_error_with_the_line_and_a_hint(fixture_judge):
    report = grade(fixture_judge, "import torch\nimport no_such_module_here\n")
    assert report.verdict == Verdict.compile_error and "ModuleNotFoundError" in report.message.zh
    lines = report.message.en.splitlines()
    assert lines[1:3] == ["    import no_such_module_here", "    " + "^" * len("import no_such_module_here")]
    assert lines[3].startswith("hint:") and len(lines) == 4
    assert {c.message.en for c in report.cases} == {"Not run: your file did not import"} and report.total == 3


def test_exit_at_import_is_runtime_error(fixture_judge):
    report = grade(fixture_judge, "import os\nos._exit(0)\n")
    assert report.verdict == Verdict.runtime_error
    assert "while your file was being imported" in report.message.en and "exit code 0" in report.message.en


def test_a_file_that_never_finishes_importing_is_told_so(fixture_judge):
    report = grade(fixture_judge, "x = 0\nwhile True:\n    x += 1\n")
    assert report.verdict == Verdict.time_limit_exceeded
    assert "did not finish importing within 6 s" in report.message.en  # 900's wall limit
    # the worker's stack, just before the limit: the loop's test or its body, wherever the sample fell
    assert "running line 2 (in <module>)" in report.message.en or "running line 3 (in <module>)" in report.message.en
    assert all(c.outcome == Outcome.error for c in report.cases)


def test_exit_during_a_probe_is_runtime_error(fixture_judge):
    report = grade(fixture_judge, "import os\ndef add(a, b):\n    os._exit(0)\n")
    assert report.verdict == Verdict.runtime_error
    assert all(c.outcome == Outcome.error for c in report.cases)


def test_infinite_loop_is_time_limit_exceeded_and_names_its_line(fixture_judge):
    report = grade(fixture_judge, "def add(a, b):\n    n = 0\n    while True:\n        n += 1\n", mode="run")
    assert report.verdict == Verdict.time_limit_exceeded
    assert report.total == 2
    running = report.cases[0]
    assert running.line in (3, 4)  # the loop's test or its body: wherever the stack's sample fell
    code = {3: "while True:", 4: "n += 1"}[running.line]
    assert f"running line {running.line} (in add) when the time ran out: {code}" in running.message.en
    assert "Timeout (" not in report.run.output_tail  # the judge's stack block is not shown as the learner's output


def test_a_forged_stack_block_in_the_output_names_nothing(fixture_judge):
    """The learner's code prints a faulthandler block of its own, naming a line of its choice, just before the
    limit. The judge reads the stack from a descriptor the learner's code cannot write (JobSpec.stack, sealed by
    the guard's fence): the line named is the loop's, and the forged block stays the learner's own output."""
    forged = (
        "Timeout (0:00:05)!\\nThread 0x00007f0000000000 (most recent call first):\\n"
        '  File \\"900.py\\", line 1 in forged\\n'
    )
    source = (
        "import sys, time\n"
        "def add(a, b):\n"
        "    last = time.monotonic()\n"
        "    while True:\n"
        "        if time.monotonic() - last > 0.5:\n"
        f'            sys.stderr.write("{forged}\\n"); sys.stderr.flush(); last = time.monotonic()\n'
    )
    report = grade(fixture_judge, source, mode="run", display_name="900.py")
    assert report.verdict == Verdict.time_limit_exceeded
    running = report.cases[0]
    assert running.line in (4, 5, 6) and "in forged" not in running.message.en, running.message.en
    assert "line 1 in forged" in report.run.output_tail  # the learner's own print, shown as theirs


def test_a_loop_in_a_hidden_case_is_not_located(fixture_judge):
    # public cases pass; the third call (the hidden case) loops: its line could carry the hidden input out
    source = (
        "calls = []\ndef add(a, b):\n    calls.append(1)\n    while len(calls) > 2:\n        pass\n    return a + b\n"
    )
    report = grade(fixture_judge, source)
    assert report.verdict == Verdict.time_limit_exceeded
    hidden = report.cases[2]
    assert hidden.hidden and hidden.line is None and "running line" not in hidden.message.en


def test_huge_allocation_is_memory_limit_exceeded_and_names_its_line(fixture_judge):
    source = "import torch\ndef add(a, b):\n    x = torch.ones(30 * 2**30, dtype=torch.uint8)\n    return a + b\n"
    report = grade(fixture_judge, source, mode="run", display_name="900.py")
    assert report.verdict == Verdict.memory_limit_exceeded
    running = report.cases[0]
    assert running.line == 3 and "memory limit" in running.message.en and "900.py line 3" in running.message.en
    assert all(case.line == 3 for case in report.cases if "memory limit" in case.message.en)


def test_flood_of_output_is_output_limit_exceeded(fixture_judge):
    source = "import sys\ndef add(a, b):\n    while True:\n        sys.stdout.write('x' * 65536)\n"
    report = grade(fixture_judge, source)
    assert report.verdict == Verdict.output_limit_exceeded
    assert len(report.run.output_tail) < 20000


def test_patching_torch_comparisons_is_found_by_the_workers_guard(fixture_judge):
    source = (
        "import torch\n"
        "torch.equal = lambda *a, **k: True\n"
        "torch.allclose = lambda *a, **k: True\n"
        "def add(a, b):\n    return a - b\n"
    )
    report = grade(fixture_judge, source)
    assert report.verdict == Verdict.runtime_error
    assert all("改动了判题程序所依赖的代码" in case.message.zh for case in report.cases)


def test_a_wrong_answer_with_data_changes_in_torch_stays_wrong_answer(fixture_judge):
    # torch's registries are data the guard does not watch: a plain wrong answer is judged as one.
    source = "import torch\ntorch._dynamo.config.cache_size_limit = 4\ndef add(a, b):\n    return a - b\n"
    assert grade(fixture_judge, source).verdict == Verdict.wrong_answer


def test_patching_pytest_internals_does_not_fool_the_checker(fixture_judge):
    source = (
        "import _pytest.reports, _pytest.runner\n"
        "_pytest.reports.TestReport.outcome = 'passed'\n"
        "_pytest.runner.call_and_report = lambda *a, **k: None\n"
        "def add(a, b):\n    return a - b\n"
    )
    assert grade(fixture_judge, source).verdict == Verdict.wrong_answer


def test_learner_output_is_kept_for_public_runs(fixture_judge):
    report = grade(fixture_judge, "def add(a, b):\n    print('debugging', a.shape)\n    return a + b\n", mode="run")
    assert report.verdict == Verdict.accepted
    assert "debugging" in report.public().output


def test_bad_requests_raise_judge_errors(fixture_judge):
    with pytest.raises(UnknownProblem):
        fixture_judge.grade("404", GOOD)
    with pytest.raises(BadSubmission):
        fixture_judge.grade("900", b"\xff\xfe")
    with pytest.raises(JudgeError):
        fixture_judge.grade("900", GOOD, mode="everything")


def test_judge_keeps_working_after_misbehaviour(fixture_judge):
    grade(fixture_judge, "import os\nos._exit(3)\n")
    assert grade(fixture_judge, GOOD).verdict == Verdict.accepted


def test_a_stack_summary_names_no_frame_of_the_judge_or_the_probes(fixture_judge):
    """traceback.extract_stack (a frame consumer learner code may call) skips the judge's and the probes' frames:
    no probe's or serve loop's name tells the learner's code what observes it (a swap aimed by reading the stack
    forged exercise 100's opcheck before). The learner's own frames and torch's stay."""
    source = (
        "import traceback\n\n\ndef add(a, b):\n"
        "    names = [f'{f.name}@{f.filename.rsplit(\"/\", 1)[-1]}' for f in traceback.extract_stack()]\n"
        "    raise RuntimeError('STACK ' + ' '.join(names))\n"
    )
    report = grade(fixture_judge, source, mode="run")
    shown = " ".join(c.message.en for c in report.cases if "STACK" in c.message.en)
    assert "STACK" in shown and "add@" in shown  # the learner's own frame is there
    for hidden in ("probes.py", "main.py", "serve", "_call", "guard.py"):
        assert hidden not in shown, shown


def test_no_path_of_the_judges_installation_reaches_the_learner(fixture_judge):
    """Warnings at every stacklevel (which name the probes', the judge's and torch's files), printed __file__s of
    whatever is reachable, and an exception carrying one: the report shows none of the host's install paths."""
    import sys
    import sysconfig
    from pathlib import Path

    import judge

    source = (
        "import sys, warnings\nimport torch\n"
        "print(torch.__file__, sys.modules['judge.worker.main'].__file__, warnings.__file__)\n"
        "def add(a, b):\n"
        "    for level in range(1, 16):\n"
        "        warnings.warn(f'level {level}', stacklevel=level)\n"
        "    raise RuntimeError('from ' + torch.__file__)\n"
    )
    report = grade(fixture_judge, source, mode="run")
    shown = report.public("en").model_dump_json() + report.public("zh").model_dump_json()
    roots = {str(Path(judge.__file__).resolve().parents[1]), sys.prefix, sysconfig.get_paths()["purelib"]}
    assert "level 15" in shown and "<site-packages>/torch" in shown  # the warnings and prints are there, paths hidden
    assert not [root for root in roots if root in shown], roots
