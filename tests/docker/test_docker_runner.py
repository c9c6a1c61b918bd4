"""Exercise 100 through the docker runner: the same verdicts as the local runner, and the red-team containment cases."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from judge import Judge, Verdict
from judge.settings import Settings
from tests.redteam.test_redteam import Attack

# The first test waits for the session fixtures: a dockerd and, on a fresh engine, `judge image build` (~6 min).
pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]
REDTEAM = Path(__file__).resolve().parent.parent / "redteam" / "submissions"
PROBLEM = Path(__file__).resolve().parent.parent.parent / "problems" / "100-custom-op"
# Every known-wrong solution (each declares its verdict on its first line), as the "done when" asks.
WRONG = sorted(p.stem for p in (PROBLEM / "solutions" / "wrong").glob("*.py"))
INFINITE_LOOP = "import time\nwhile True:\n    time.sleep(0)\n"
# Containment cases of the red-team corpus: network, processes, memory, files, output, time, the parent.
CONTAINMENT = [
    "network_tcp_udp",
    "fork_bomb",
    "memory_30gb_at_once",
    "write_outside_scratch",
    "detached_grandchild",
    "stdout_gigabytes",
    "infinite_loop_in_probe",
    "kill_parent",
    "read_secrets",
]


@pytest.fixture(scope="module")
def docker_judge(runner_image):
    with Judge(Settings(sandbox="docker", docker_image=runner_image)) as judge:
        yield judge


def _sources():
    yield "reference", (PROBLEM / "solutions" / "reference.py").read_text(encoding="utf-8")
    for name in WRONG:
        yield name, (PROBLEM / "solutions" / "wrong" / f"{name}.py").read_text(encoding="utf-8")
    yield "infinite_loop", INFINITE_LOOP


@pytest.mark.parametrize("name,source", list(_sources()), ids=[n for n, _ in _sources()])
def test_same_verdict_as_the_local_runner(docker_judge, judge, name, source):
    local, boxed = judge.grade("100", source), docker_judge.grade("100", source)
    assert boxed.verdict == local.verdict, (
        f"{name}: docker {boxed.verdict} ({boxed.detail[-800:]}), local {local.verdict}"
    )
    assert [c.outcome for c in boxed.cases] == [c.outcome for c in local.cases]
    declared = source.splitlines()[0].removeprefix("# expect:").strip() if name in WRONG else None
    if declared:
        assert boxed.verdict.value == declared, f"{name}: docker gives {boxed.verdict.value}, it declares {declared}"
    if name == "reference":
        assert boxed.verdict == Verdict.accepted
        assert boxed.run.layers["network"].startswith("active") and boxed.run.layers["landlock"] == "active"


@pytest.mark.parametrize("name", CONTAINMENT)
def test_containment_through_the_docker_runner(docker_judge, name):
    attack = Attack.load(REDTEAM / f"{name}.py")
    token = uuid.uuid4().hex
    report = docker_judge.grade("100", attack.source(f"pj-canary-{token}", f"/nonexistent/pj-{token}"))
    assert report.verdict in attack.expect, f"{name}: {report.verdict} ({report.message}) {report.detail[-800:]}"
    assert report.verdict != Verdict.accepted


def test_judge_keeps_working_after_the_attacks(docker_judge):
    report = docker_judge.grade("100", (PROBLEM / "solutions" / "reference.py").read_text(encoding="utf-8"))
    assert report.verdict == Verdict.accepted, report.detail[-800:]
