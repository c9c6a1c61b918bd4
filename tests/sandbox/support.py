"""Helpers shared by the sandbox tests."""

from __future__ import annotations

import json

import pytest

from tests.redteam.hostcheck import layers_required


def need(plan: dict[str, str], *names: str) -> None:
    """Skip a test whose layers are off here; where layers are required (CI, root on Linux) fail it instead."""
    for name in names:
        if plan.get(name) != "active":
            if layers_required():
                pytest.fail(
                    f"layer {name} is off on a host that must offer it (CI or root on Linux; "
                    f"PRACTICE_REQUIRE_LAYERS=0 on a weaker host): {plan.get(name)}"
                )
            pytest.skip(f"layer {name} is not active here: {plan.get(name)}")


def result(facts) -> dict:
    """The RESULT line a target in targets.py printed."""
    for line in facts.output_tail.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise AssertionError(f"no result (exit {facts.exit_code}, signal {facts.signal}):\n{facts.output_tail}")
