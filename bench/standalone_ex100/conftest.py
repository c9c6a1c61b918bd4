"""A naive judge's suite for exercise 100: the problem's own public and hidden checks, with the solution
imported into the pytest process itself (what practice-judge exists to avoid). Baseline for
bench/warm_vs_cold.py only; EX100_SOLUTION picks the file (default: the reference).

The problem's conftest fixtures are re-exported here; `remote` (and `probe`, as the judge's plugin
defines it) call the probes in-process, on copies of the tensor arguments (a real worker gets
serialised copies too, and the checks compare against the originals); `problem` is problem.toml.
"""

import importlib.util
import os
import sys
import tomllib
from pathlib import Path

import pytest
import torch

from judge.checker.errors import LearnerError
from judge.checker.messages import learner_failure
from judge.report.models import ProblemMeta

REPO = Path(__file__).resolve().parents[2]
PROBLEM = REPO / "problems" / "100-custom-op"
SOLUTION = Path(os.environ.get("EX100_SOLUTION", PROBLEM / "solutions" / "reference.py"))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


probes = _load("ex100_probes", PROBLEM / "tests" / "probes.py")  # before the solution, as in the worker
solution = _load("ex100_solution", SOLUTION)
_problem_conftest = _load("ex100_problem_conftest", PROBLEM / "tests" / "conftest.py")
globals().update({k: v for k, v in vars(_problem_conftest).items() if not k.startswith("_")})


def _copy(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


class InProcessRemote:
    def call(self, probe, *args, **kwargs):
        try:
            return getattr(probes, probe)(solution, *_copy(args), **_copy(kwargs))
        except Exception as exc:
            raise LearnerError(type(exc).__name__, str(exc)) from exc


@pytest.fixture(scope="session")
def remote():
    return InProcessRemote()


@pytest.fixture(scope="session")
def problem():
    return ProblemMeta.model_validate(tomllib.loads((PROBLEM / "problem.toml").read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def probe(remote):
    """The judge plugin's probe fixture: a learner's exception fails the case with the check's hint."""

    def call(name, *args, hint, **kwargs):
        try:
            return remote.call(name, *args, **kwargs)
        except LearnerError as exc:
            raise AssertionError(learner_failure(hint, exc, SOLUTION.name)) from None

    return call
