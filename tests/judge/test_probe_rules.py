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


READS = "probes read tensors only through the worker's accessors (no .dtype, .shape, isinstance(...) in probes.py)"


@pytest.mark.parametrize(
    "source,named",
    [
        ("def p(s, x):\n    return {'dtype': str(s.op(x).dtype)}\n", ".dtype"),
        ("def p(s, x):\n    return list(s.op(x).shape)\n", ".shape"),
        ("def p(s, x):\n    return s.op(x).detach().clone()\n", ".detach"),
        ("def p(s, x):\n    return s.op(x).untyped_storage().data_ptr()\n", ".untyped_storage"),
        ("def p(s, x):\n    return type(s.op(x)).__name__\n", "type()"),
        ("import torch\ndef p(s, x):\n    return isinstance(s.op(x), torch.Tensor)\n", "isinstance()"),
        ("def p(s, x):\n    out = s.op(x)\n    out.backward(x)\n", ".backward"),
        ("def p(s, x):\n    return s.op(x)._version\n", "._version"),
    ],
)
def test_each_direct_read_of_a_tensor_is_named_with_its_line(source, named):
    from judge.problem.probe_rules import observing_reads

    found = observing_reads(source)
    assert found and any(named in f.what for f in found), found


def test_reads_through_the_accessors_and_named_programs_pass():
    from judge.problem.probe_rules import observing_reads

    source = (
        "import torch\nfrom judge.worker import tensors as _t\n_e = torch.empty\n"
        "RUN_NOT_READ = ('program',)\n"
        "def program(x):\n    return x.sum().detach() * x.shape[0]\n"
        "def p(s, x):\n    out = s.op(x)\n"
        "    return {'meta': _t.describe(out), 'out': _t.plain(out), 'd': torch.device('cpu')}\n"
    )
    assert observing_reads(source) == []
    assert observing_reads(source.replace("RUN_NOT_READ = ('program',)\n", "")) != []  # the exemption is the list


def test_judge_check_refuses_a_probe_that_reads_a_tensor_directly(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "900-echo")
    probes = tmp_path / "900-echo" / "tests" / "probes.py"
    clean = {c.name: c for c in static_checks(load_problem(tmp_path / "900-echo"))}
    assert clean[READS].ok, clean[READS].detail
    probes.write_text(probes.read_text(encoding="utf-8") + "\n\ndef peek(solution, x):\n    return str(x.dtype)\n")
    checks = {c.name: c for c in static_checks(load_problem(tmp_path / "900-echo"))}
    assert not checks[READS].ok and ".dtype" in checks[READS].detail


def test_no_exercise_probe_reads_a_tensor_directly():
    from judge.problem.probe_rules import check_observing_file

    for folder in sorted(p for p in (ROOT / "problems").iterdir() if p.is_dir()):
        assert check_observing_file(folder / "tests" / "probes.py") == [], folder.name
