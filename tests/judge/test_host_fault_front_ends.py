"""What the front ends make of a host's fault: the public report says a retry may pass (the page offers one), and
the CLI names the isolation layers a second tier ran without."""

from __future__ import annotations

import io

from rich.console import Console

from judge.cli.terminal import _notices
from judge.report.catalog import say
from judge.report.models import Report, Verdict, internal_error


def test_a_retryable_internal_error_is_retryable_in_the_public_report():
    host = internal_error("107", "submit", "the GPU runner failed its canary", "gpu-runner", retryable=True)
    assert host.public("en").retryable and host.public("zh").retryable
    broken = internal_error("107", "submit", "problem.toml is broken", "problem", retryable=False)
    assert not broken.public("en").retryable
    rejected = Report(problem="900", verdict=Verdict.wrong_answer, score=0, passed=0, total=1, mode="run")
    assert not rejected.public("en").retryable


def test_the_cli_names_the_layers_a_gpu_tier_ran_without():
    report = Report(problem="107", verdict=Verdict.accepted, score=1, passed=2, total=2, mode="submit")
    report.run.layers = {"landlock": "active", "seccomp": "active"}
    report.tier_layers = {"cpu": dict(report.run.layers), "gpu": {"landlock": "active", "seccomp": "unavailable"}}
    out = io.StringIO()
    _notices(Console(file=out, width=200), report, "en")
    want = say("cli.tier_layers_missing", tier="GPU", layers="seccomp").en
    assert want in out.getvalue() and "cpu tier" not in out.getvalue().lower()
