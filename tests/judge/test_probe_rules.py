"""The rule that probes observe and the checker decides: `judge check` refuses a probes file that imports or calls
a deciding utility (judge/problem/probe_rules.py), and no exercise's probes or the worker's observation helpers do."""

import shutil
from pathlib import Path

import pytest

from judge.problem.folders import load_problem
from judge.problem.probe_rules import check_probes_file, deciding_uses
from judge.problem.selfcheck import static_checks

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "problems" / "900-echo"
RULE = "probes observe, the checker decides (no opcheck, gradcheck, torch.testing, allclose or equal in probes.py)"


@pytest.mark.parametrize(
    "source,named",
    [
        ("from torch.library import opcheck as _o\n", "opcheck"),
        ("import torch\n_g = torch.autograd.gradcheck\n", "gradcheck"),
        ("from torch.autograd.gradcheck import GradcheckError\n", "GradcheckError"),
        ("import torch.testing\n", "torch.testing"),
        ("from torch.testing import assert_close\n", "assert_close"),
        ("from torch.testing._internal.optests import generate_tests\n", "generate_tests"),
        ("import torch\ndef p(s, x):\n    return x.equal(x.clone())\n", "equal"),
        ("import torch\n_eq = torch.equal\n", "equal"),
        ("import torch\ndef p(s, a, b):\n    return torch.allclose(a, b)\n", "allclose"),
        ("from torch import isclose\n", "isclose"),
    ],
)
def test_each_deciding_utility_is_named_with_its_line(source, named):
    found = deciding_uses(source)
    assert found and any(named in f.what for f in found), found
    assert all(f.line >= 1 for f in found)


def test_observing_code_passes():
    source = (
        "import torch\nfrom judge.worker.opobserve import opcheck_data\n"
        "def p(s, x):\n    out = torch.ops.ex.f.default(x)\n    return {'out': out.clone(), 'x_after': x.clone()}\n"
    )
    assert deciding_uses(source) == []


@pytest.mark.parametrize("folder", sorted(p for p in (ROOT / "problems").iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_no_exercise_probe_decides(folder):
    assert check_probes_file(folder / "tests" / "probes.py") == []


def test_the_worker_observation_helpers_decide_nothing():
    for module in ("opobserve.py", "observe.py"):
        assert check_probes_file(ROOT / "judge" / "worker" / module) == [], module


def test_judge_check_refuses_a_planted_deciding_probe(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "900-echo")
    probes = tmp_path / "900-echo" / "tests" / "probes.py"
    clean = {c.name: c for c in static_checks(load_problem(tmp_path / "900-echo"))}
    assert clean[RULE].ok
    probes.write_text(
        probes.read_text(encoding="utf-8") + "\nfrom torch.library import opcheck as _opcheck\n", encoding="utf-8"
    )
    planted = {c.name: c for c in static_checks(load_problem(tmp_path / "900-echo"))}
    assert not planted[RULE].ok
    assert "imports opcheck from torch.library" in planted[RULE].detail and "conftest.py" in planted[RULE].detail
