"""The static scan for constructs an instructor should look at: each family found, honest code left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from judge.flags import source_flags, tamper_flags
from judge.report.models import CaseResult, Outcome, Report, Verdict

REPO = Path(__file__).resolve().parents[2]

CASES = {
    "frame-walking": [
        "import sys\nf = sys._getframe(1).f_back.f_globals",
        "import inspect\nfor fr in inspect.stack():\n    pass",
        "try:\n    1/0\nexcept Exception as e:\n    g = e.__traceback__.tb_frame",
        "def g():\n    yield\nx = g().gi_frame",
        "import sys\nsecret = getattr(sys, '_getframe')(2)",
    ],
    "gc": ["import gc\nobjs = gc.get_objects()", "from gc import get_referrers"],
    "ctypes": ["import ctypes\nctypes.memmove(0, 0, 0)", "from ctypes import pythonapi"],
    "sys-modules": [
        "import sys\nsys.modules['torch'] = None",
        "from sys import modules",
        "import sys\nsys.meta_path.insert(0, object())",
    ],
    "audit-hook": ["import sys\nsys.addaudithook(lambda *a: None)"],
    "trace": ["import sys\nsys.settrace(None)", "import threading\nthreading.setprofile(None)"],
    "os-fd": [
        "import os\nos.write(1023, b'x')",
        "import os\nfd = os.dup(3)",
        "open('/proc/self/mem', 'rb')",
        "import os\nos.fdopen(5)",
    ],
    "socket": ["import socket\ns = socket.socket()", "from socket import socketpair"],
    "signal": ["import signal\nsignal.signal(signal.SIGTERM, None)", "import os\nos.kill(os.getppid(), 9)"],
    "monkeypatch": [
        "import torch\ntorch.allclose = lambda *a, **k: True",
        "import judge.worker.observe as observe\nobserve._argument = None",
        "import torch\nsetattr(torch, 'equal', None)",
    ],
    "judge-internals": ["from judge.checker import remote"],
    "dynamic-code": ["exec('print(1)')", "__import__('os')"],
    "function-internals": [
        "g = f.__globals__",
        "f.__code__.replace(co_consts=())",
        "c = f.__closure__[0].cell_contents",
    ],
    "threads": ["import threading\nthreading.Thread(target=print).start()"],
    "dynamo-internals": ["import torch\ntorch._dynamo.eval_frame.set_eval_frame(None)"],
    "interpreter": [
        "class A:\n    def __del__(self):\n        pass",
        "import weakref\nweakref.finalize(x, print)",
        "import sys\nsys.setrecursionlimit(10**6)",
        "import gc\ngc.set_debug(gc.DEBUG_SAVEALL)",
    ],
    "exit": ["import os\nos._exit(0)"],
}


@pytest.mark.parametrize("flag,source", [(f, s) for f, sources in CASES.items() for s in sources])
def test_each_family_is_flagged(flag, source):
    assert flag in source_flags(source)


def test_code_that_never_runs_is_flagged_too():
    source = "def never():\n    import ctypes\n    return ctypes\n\nif False:\n    import gc\n"
    assert {"ctypes", "gc"} <= set(source_flags(source))


def test_a_source_that_does_not_parse_still_gets_a_text_scan():
    assert "frame-walking" in source_flags("def f(:\n    sys._getframe(1)\n")


def test_honest_torch_code_is_not_flagged():
    source = (
        "import torch\nfrom torch import Tensor\n\n@torch.library.custom_op('ex::f', mutates_args=())\n"
        "def f(x: Tensor) -> Tensor:\n    return torch.stack([x, x]).sum(0)\n\n"
        "model = torch.nn.Linear(2, 2).eval()\nfast = torch.compile(model, backend='aot_eager')\n"
        "def signal_strength(signal):\n    return signal.abs().max()\n"
    )
    assert source_flags(source) == []


def test_no_solution_or_starter_of_any_problem_is_flagged():
    files = [*REPO.glob("problems/*/starter.py"), *REPO.glob("problems/*/solutions/**/*.py")]
    assert files
    flagged = {str(p.relative_to(REPO)): source_flags(p.read_bytes()) for p in files}
    assert {k: v for k, v in flagged.items() if v} == {}


@pytest.mark.parametrize(
    "source",
    [
        b"",
        b"\x00\xff\xfe binary \x00",
        "(" * 200_000,
        "x = " + "-" * 500_000 + "1",
        "\ud800 lone surrogate",
        "def f(:",
        "\x00import ctypes",
        12345,
        None,
    ],
)
def test_never_raises(source):
    assert isinstance(source_flags(source), list)


def test_never_raises_on_random_bytes():
    rng = random.Random(0)
    for _ in range(200):
        assert isinstance(source_flags(bytes(rng.randrange(256) for _ in range(rng.randrange(200)))), list)


def _report(verdict: Verdict, detail: str, tampered: bool = False) -> Report:
    case = CaseResult(name="test_x", outcome=Outcome.error, detail=detail, tampered=tampered)
    return Report(problem="900", verdict=verdict, score=0, passed=0, total=1, cases=[case], tampered=tampered)


def test_tampering_comes_from_the_reports_fact_not_its_text():
    guard = "judge.checker.errors.Tampered: the worker's guard found the judge's own code changed"
    assert tamper_flags(_report(Verdict.runtime_error, "WorkerLost: tampered", tampered=True)) == ["tampering"]
    assert tamper_flags(_report(Verdict.runtime_error, "WorkerLost: worker died (signal 9)")) == []
    assert tamper_flags(_report(Verdict.runtime_error, guard)) == []  # a sentence is not the fact
