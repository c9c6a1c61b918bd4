"""A syntax error is answered by the judge itself, before any worker starts and without importing torch."""

import shutil
import subprocess
import sys

import pytest

from judge import Judge
from judge.errors import BadSubmission
from judge.report.models import Verdict
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS


@pytest.fixture
def small_limit_judge(tmp_path):
    """900 with a per-problem source limit of 1 KiB (below the judge-wide 1 MiB)."""
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", tmp_path / "900-echo")
    toml = tmp_path / "900-echo" / "problem.toml"
    toml.write_text(toml.read_text().replace("wall_s = 6", "wall_s = 6\nsource_kib = 1"))
    with Judge(Settings(problems_dir=tmp_path)) as judge:
        yield judge


def test_a_syntax_error_starts_no_worker(small_limit_judge):
    report = small_limit_judge.grade("900", "def add(a, b)\n")
    assert report.verdict == Verdict.compile_error and report.total == 0
    assert small_limit_judge._zygotes is None  # nothing was forked, nothing warmed


def test_the_problems_source_limit_applies_at_its_boundary(small_limit_judge):
    at_limit = "def add(a, b)" + "#" * (1024 - 13)  # exactly 1 KiB, and a syntax error: judged without a worker
    assert len(at_limit.encode()) == 1024
    assert small_limit_judge.grade("900", at_limit).verdict == Verdict.compile_error
    with pytest.raises(BadSubmission, match="1025 bytes; the limit is 1024"):
        small_limit_judge.grade("900", at_limit + "#")


def test_the_syntax_error_path_imports_no_torch():
    code = (
        "import sys\nfrom judge import Judge\nfrom judge.settings import Settings\n"
        f"judge = Judge(Settings(problems_dir={str(FIXTURE_PROBLEMS)!r}))\n"
        "report = judge.grade('900', 'def add(:\\n')\n"
        "assert report.verdict.value == 'compile_error', report\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy'))\n"
        "print(heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_missing_module_gets_the_hint_that_fits_it():
    """A misspelled torch submodule is answered with the closest real name (found on disk: nothing is imported),
    a module of the learner's own (a helper file) with 'the exercise takes one file', anything else with what the
    judge offers."""
    import sys

    from judge.grading.precheck import _hint

    typo = _hint("ModuleNotFoundError", "No module named 'torch.nn.functionl'")
    assert "did you mean torch.nn.functional?" in typo.en and "torch.nn.functional" in typo.zh
    helper = _hint("ModuleNotFoundError", "No module named 'my_helpers'")
    assert "the exercise takes one file" in helper.en and "my_helpers" in helper.en
    offered = _hint("ModuleNotFoundError", "No module named 'numpy.linalgx.foo'")
    assert "did you mean numpy.linalg" in offered.en
    code = (
        "import sys; from judge.grading.precheck import _hint; "
        "_hint('ModuleNotFoundError', \"No module named 'torch.nn.functionl'\"); print('torch' in sys.modules)"
    )
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr  # the judge's own process still imports no torch here
    plain = _hint("ImportError", "cannot import name 'x' from 'torch'")
    assert "the judge offers only torch, numpy" in plain.en
