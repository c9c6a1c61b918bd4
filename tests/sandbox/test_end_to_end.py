"""Slow: torch inside the sandbox (torch.compile writes caches, runs a compiler) and whole judgements."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from judge import Judge
from judge.settings import Settings
from sandbox import JobSpec, ZygoteClient
from sandbox.paths import REPO_ROOT
from tests.redteam.hostcheck import doctor_layers, layers_required
from tests.sandbox.support import result

pytestmark = pytest.mark.slow

TINY = {
    "problem.toml": """
        id = "901"
        slug = "sandboxed-add"
        chapter = "demo"
        difficulty = "easy"
        device = "cpu"
        solution_file = "901.py"
        [title]
        zh = "沙箱加法"
        en = "Sandboxed add"
        [limits]
        wall_s = 60
        """,
    "starter.py": "def add(a, b):\n    raise NotImplementedError\n",
    # torch.compile runs in the probe: the worker's guard refuses dynamo's frame hooks to learner code
    # (judge/worker/torchgate.py), so a compile a judgement needs is the probe's.
    "solutions/reference.py": "def add(a, b):\n    return a + b\n",
    "tests/probes.py": (
        "import torch\n\ndef add(solution, a, b):\n"
        "    return torch.compile(lambda x, y: solution.add(x, y), backend='aot_eager')(a, b)\n"
    ),
    "tests/test_public.py": """
        import torch

        def test_add(remote):
            a = torch.ones(3)
            assert torch.equal(remote.call("add", a, a), a * 2)
        """,
    "tests/test_hidden.py": """
        import torch

        def test_add_hidden(remote):
            a = torch.arange(4.0)
            assert torch.equal(remote.call("add", a, a), a * 2)
        """,
}


@pytest.fixture(scope="module")
def torch_zygote():
    z = ZygoteClient(["torch", "torch._dynamo"], "test-torch-zygote").start()
    z.wait_ready(300)
    yield z
    z.close()


def test_torch_compile_works_inside_the_sandbox(torch_zygote, tmp_path):
    workdir = str(tmp_path)
    facts = torch_zygote.run(
        JobSpec(
            target="tests.sandbox.targets:compile_torch",
            isolate=True,
            wall_s=400,
            memory_bytes=3 << 30,
            workdir=workdir,
            payload={"backends": ["aot_eager", "inductor"]},
        )
    ).wait(450)
    seen = result(facts)
    assert seen["user"] == "sandbox"
    assert seen["aot_eager"] == "ok"
    assert seen["inductor"] == "ok"
    off = {name: state for name, state in facts.layers.items() if state != "active"}
    if off and layers_required():
        pytest.fail(f"layers off on a host that must offer them (CI or root on Linux): {off}")
    if off:
        pytest.skip(f"layers off on this host: {off} (PRACTICE_REQUIRE_LAYERS=1 makes this a failure)")


@pytest.fixture(scope="module")
def offered(plan) -> dict[str, str]:
    """The host's layers as `judge doctor --json` reports them from another process (not this process's own
    plan, which shares whatever this process got wrong); the plan only where the command is unavailable."""
    found = doctor_layers()
    if not found and layers_required():
        pytest.fail("`judge doctor --json` gave no layers on a host that must offer them")
    return found or plan


def _same_layers(got: dict[str, str], offered: dict[str, str]) -> None:
    differ = {name: (got.get(name), state) for name, state in offered.items() if got.get(name) != state}
    assert not differ, f"(the job got, the host offers): {differ}"


def _tiny_problem(root: Path) -> Path:
    folder = root / "901-sandboxed-add"
    for name, text in TINY.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder


def test_reference_accepted_with_every_layer(tmp_path, offered):
    folder = _tiny_problem(tmp_path)
    with Judge(Settings(problems_dir=tmp_path)) as judge:
        report = judge.grade("901", (folder / "solutions" / "reference.py").read_text())
    assert report.verdict.value == "accepted", (report.message, report.detail, report.run.output_tail)
    _same_layers(report.run.layers, offered)


def test_exercise_100_reference_accepted(offered):
    reference = Path(REPO_ROOT) / "problems" / "100-custom-op" / "solutions" / "reference.py"
    if not reference.exists():
        pytest.skip("exercise 100 is not there yet")
    with Judge() as judge:
        report = judge.grade("100", reference.read_text())
    assert report.verdict.value == "accepted", (report.message, report.detail, report.run.output_tail)
    _same_layers(report.run.layers, offered)
