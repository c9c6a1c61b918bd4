"""Helpers shared by the sandbox tests."""

from __future__ import annotations

import json

import pytest


def need(plan: dict[str, str], *names: str) -> None:
    for name in names:
        if plan.get(name) != "active":
            pytest.skip(f"layer {name} is not active here: {plan.get(name)}")


def result(facts) -> dict:
    """The RESULT line a target in targets.py printed."""
    for line in facts.output_tail.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise AssertionError(f"no result (exit {facts.exit_code}, signal {facts.signal}):\n{facts.output_tail}")
